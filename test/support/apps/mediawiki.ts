import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { freePort } from '../postgres-cluster.ts'
import { testTools } from '../suite/test-tools.ts'
import { type PhpServer, startPhpServer } from './php-server.ts'

const run = promisify(execFile)

/** Debian's MediaWiki (package mediawiki): its code, read-only, served as it is installed. */
export const mediawikiRoot = '/usr/share/mediawiki'

export interface MediaWiki {
  /** The wiki's address (`http://127.0.0.1:<port>`), as its LocalSettings.php names it. */
  url: string
  /** The administrator the installer made. */
  admin: { user: string; password: string }
  /** What the wiki's action API answers to `params` (`format=json` added), anonymously. */
  api<T>(params: Record<string, string>): Promise<T>
  stop(): Promise<void>
}

/**
 * A throwaway wiki for one test file: Debian's MediaWiki on SQLite in a temp folder, installed by its
 * own command-line installer (maintenance/install.php, the documented way to install without a
 * browser) and served by `php -S` (php-server.ts). Debian's MediaWiki reads the LocalSettings.php under
 * /var/lib/mediawiki; the PHP server's router instead defines MW_CONFIG_FILE, which MediaWiki reads
 * before any other, as the installer's LocalSettings.php in the temp folder.
 */
export async function startMediaWiki(): Promise<MediaWiki> {
  const dir = mkdtempSync(join(tmpdir(), 'sextant-mediawiki-'))
  let php: PhpServer | undefined
  const stop = async () => {
    await php?.stop()
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    const data = join(dir, 'data')
    mkdirSync(data)
    // The wiki's address is written into its settings: the port is chosen before the install.
    const port = await freePort()
    const admin = { user: 'Admin', password: 'sextant-admin-password' }
    await run('php', [
      join(mediawikiRoot, 'maintenance', 'install.php'),
      '--dbtype=sqlite',
      `--dbpath=${data}`,
      '--dbname=wiki',
      `--server=http://127.0.0.1:${port}`,
      '--scriptpath=',
      `--confpath=${dir}`,
      `--pass=${admin.password}`,
      'Sextant Wiki',
      admin.user,
    ])
    php = await startPhpServer({
      docroot: mediawikiRoot,
      dir,
      constants: { MW_CONFIG_FILE: join(dir, 'LocalSettings.php') },
      ready: '/index.php',
      port,
    })
    const { url } = php
    return {
      url,
      admin,
      async api<T>(params: Record<string, string>): Promise<T> {
        const query = new URLSearchParams({ ...params, format: 'json', formatversion: '2' })
        const response = await fetch(`${url}/api.php?${query}`)
        if (!response.ok) throw new Error(`MediaWiki API: ${response.status} ${await response.text()}`)
        return (await response.json()) as T
      },
      stop,
    }
  } catch (error) {
    await stop()
    throw error
  }
}

/** Whether this machine has what startMediaWiki() needs (./dev test installs it). */
export function hasMediaWiki(): boolean {
  const { mediawiki, phpSqlite, php } = testTools
  return [mediawiki, phpSqlite, php].every((tool) => tool.present())
}
