import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { testTools } from '../suite/test-tools.ts'
import { type Mariadb, startMariadb } from './mariadb.ts'
import { type PhpServer, phpString, startPhpServer } from './php-server.ts'

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
 * A throwaway WordPress site for one test file: Debian's WordPress served by `php -S` (php-server.ts),
 * its database a throwaway MariaDB (mariadb.ts), installed over HTTP by install.php's step 2 as a
 * person's first visit would, with one administrator. Nothing is written outside a temp folder.
 *
 * Debian's own wp-config.php reads /etc/wordpress/config-<host>.php; instead, the PHP server's router
 * defines ABSPATH as the temp folder before WordPress loads (wp-load.php keeps an ABSPATH that is
 * already set), and that folder holds this site's wp-config.php beside links to Debian's code, and its
 * own wp-content for uploads.
 */
export async function startWordPress(): Promise<WordPress> {
  const dir = mkdtempSync(join(tmpdir(), 'sextant-wordpress-'))
  let db: Mariadb | undefined
  let php: PhpServer | undefined
  const stop = async () => {
    await php?.stop()
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
    php = await startPhpServer({
      docroot: wordpressRoot,
      dir,
      constants: { ABSPATH: `${site}/` },
      ready: '/wp-login.php',
    })
    const { url } = php
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

/** Whether this machine has what startWordPress() needs (./dev test installs it). */
export function hasWordPress(): boolean {
  const { wordpress, mariadb, mariadbClient, php } = testTools
  return [wordpress, mariadb, mariadbClient, php].every((tool) => tool.present())
}
