import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from '../postgres-cluster.ts'
import { until } from '../until.ts'
import { type Mariadb, startMariadb } from './mariadb.ts'

/** Debian's WordPress (package wordpress): its code, read-only, served as it is installed. */
export const wordpressRoot = '/usr/share/wordpress'

export interface WordPress {
  /** The site's address (`http://127.0.0.1:<port>`), as WordPress itself stores it. */
  url: string
  /** The administrator install.php made. */
  admin: { user: string; password: string }
  /** Its database, to read what a run did. */
  db: Mariadb
  /** The site's name in the database, for `db.query`. */
  database: string
  /** What WordPress's REST API answers to `path` (e.g. `/wp/v2/posts?search=…`), anonymously. */
  rest<T>(path: string): Promise<T>
  stop(): Promise<void>
}

/**
 * A throwaway WordPress site for one test file: Debian's WordPress served by `php -S` on a free port,
 * its database a throwaway MariaDB (mariadb.ts), installed over HTTP by install.php's step 2 as a
 * person's first visit would, with one administrator. Nothing is written outside a temp folder.
 *
 * Debian's own wp-config.php reads /etc/wordpress/config-<host>.php; instead, the PHP server's router
 * script defines ABSPATH as the temp folder before WordPress loads (wp-load.php keeps an ABSPATH that is
 * already set), and that folder holds this site's wp-config.php beside links to Debian's code, and its
 * own wp-content for uploads.
 */
export async function startWordPress(): Promise<WordPress> {
  const dir = mkdtempSync(join(tmpdir(), 'sextant-wordpress-'))
  let db: Mariadb | undefined
  let php: ChildProcess | undefined
  const stop = async () => {
    if (php && php.exitCode === null && php.signalCode === null) {
      const exited = new Promise((resolve) => php?.once('exit', resolve))
      php.kill('SIGTERM')
      await exited
    }
    await db?.stop()
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    db = await startMariadb()
    const database = 'wordpress'
    await db.query(`CREATE DATABASE ${database}`)
    const site = join(dir, 'site')
    mkdirSync(join(site, 'wp-content', 'uploads'), { recursive: true })
    for (const entry of ['wp-admin', 'wp-includes', 'wp-settings.php'])
      symlinkSync(join(wordpressRoot, entry), join(site, entry))
    for (const entry of ['plugins', 'themes'])
      symlinkSync(join(wordpressRoot, 'wp-content', entry), join(site, 'wp-content', entry))
    writeFileSync(join(site, 'wp-config.php'), wpConfig(db, database))
    const router = join(dir, 'router.php')
    writeFileSync(router, `<?php\ndefine('ABSPATH', ${phpString(`${site}/`)});\nreturn false;\n`)
    const port = await freePort()
    const url = `http://127.0.0.1:${port}`
    // Workers: the block editor asks its REST API several things at once, and install.php asks the site
    // itself whether pretty links work; one PHP process would answer them one at a time.
    php = spawn('php', ['-S', `127.0.0.1:${port}`, '-t', wordpressRoot, router], {
      cwd: dir,
      env: { ...process.env, PHP_CLI_SERVER_WORKERS: '4' },
      stdio: 'ignore',
    })
    const server = php
    await until(
      async () =>
        server.exitCode !== null ||
        (await fetch(`${url}/wp-login.php`).then(
          () => true,
          () => false,
        )),
      { what: 'php -S to answer', timeoutMs: 20_000 },
    )
    if (server.exitCode !== null) throw new Error(`php -S exited with ${server.exitCode}`)
    const admin = { user: 'admin', password: 'sextant-admin-password' }
    await install(url, admin)
    return {
      url,
      admin,
      db,
      database,
      async rest<T>(path: string): Promise<T> {
        const response = await fetch(`${url}/?rest_route=${encodeURI(path).replace('?', '&')}`)
        if (!response.ok)
          throw new Error(`WordPress REST ${path}: ${response.status} ${await response.text()}`)
        return (await response.json()) as T
      },
      stop,
    }
  } catch (error) {
    await stop()
    throw error
  }
}

function phpString(text: string): string {
  return `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`
}

function wpConfig(db: Mariadb, database: string): string {
  return `<?php
define('DB_NAME', ${phpString(database)});
define('DB_USER', ${phpString(db.user)});
define('DB_PASSWORD', '');
define('DB_HOST', ${phpString(db.host)});
define('DB_CHARSET', 'utf8mb4');
define('DB_COLLATE', '');
define('WP_CONTENT_DIR', __DIR__ . '/wp-content');
// Nothing reaches wordpress.org: no update checks, no cron requests to itself between pages.
define('AUTOMATIC_UPDATER_DISABLED', true);
define('WP_AUTO_UPDATE_CORE', false);
define('DISABLE_WP_CRON', true);
define('WP_HTTP_BLOCK_EXTERNAL', true);
$table_prefix = 'wp_';
require_once ABSPATH . 'wp-settings.php';
`
}

/** install.php's step 2, as its form posts it: the site's title and its first administrator. */
async function install(url: string, admin: { user: string; password: string }): Promise<void> {
  const response = await fetch(`${url}/wp-admin/install.php?step=2`, {
    method: 'POST',
    body: new URLSearchParams({
      weblog_title: 'Sextant test site',
      user_name: admin.user,
      admin_password: admin.password,
      admin_password2: admin.password,
      pw_weak: '1',
      admin_email: 'admin@example.com',
      blog_public: '0',
      language: '',
    }),
  })
  const page = await response.text()
  if (!response.ok || !page.includes('<h1>Success!</h1>'))
    throw new Error(`WordPress's install.php did not succeed (${response.status}): ${page.slice(0, 500)}`)
}

/** Whether this machine has what startWordPress() needs. */
export function hasWordPress(): boolean {
  return existsSync(join(wordpressRoot, 'wp-settings.php'))
}
