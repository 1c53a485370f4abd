import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { freePort } from '../postgres-cluster.ts'
import { until } from '../until.ts'

const run = promisify(execFile)

/** Debian's MariaDB server binary (package mariadb-server-core, which has no service); only ever a test's child. */
export const mariadbd = '/usr/sbin/mariadbd'

export interface Mariadb {
  /** `host:port` for a client such as WordPress's DB_HOST. */
  host: string
  /** The `root` user has no password: the server listens on 127.0.0.1 only, for one test file. */
  user: string
  /** Runs SQL as root (in `database` when given) and answers the rows, tab-separated, without headers. */
  query(sql: string, database?: string): Promise<string[][]>
  stop(): Promise<void>
}

/**
 * A throwaway MariaDB server, never the system service: `mariadb-install-db` into a temp folder, then
 * `mariadbd` as a child process on a free port (and a socket in that folder), with durability off since
 * nothing outlives the test; stopped and deleted by `stop()`. As root it runs as root (`--user=root`),
 * which mariadbd allows only when told so.
 */
export async function startMariadb(): Promise<Mariadb> {
  const dir = mkdtempSync(join(tmpdir(), 'sextant-mariadb-'))
  const data = join(dir, 'data')
  const socket = join(dir, 'socket')
  const asRoot = process.getuid?.() === 0
  const user = asRoot ? ['--user=root'] : []
  let server: ChildProcess | undefined
  let port = 0
  const stop = async () => {
    if (server && server.exitCode === null && server.signalCode === null) {
      const exited = new Promise((resolve) => server?.once('exit', resolve))
      server.kill('SIGTERM')
      await exited
    }
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    await run('mariadb-install-db', [
      '--no-defaults',
      `--datadir=${data}`,
      ...user,
      '--auth-root-authentication-method=normal',
      '--skip-test-db',
      '--skip-name-resolve',
    ])
    port = await freePort()
    const started = spawn(
      mariadbd,
      [
        '--no-defaults',
        `--datadir=${data}`,
        ...user,
        `--port=${port}`,
        '--bind-address=127.0.0.1',
        `--socket=${socket}`,
        `--pid-file=${join(dir, 'pid')}`,
        `--log-error=${join(dir, 'error.log')}`,
        '--skip-name-resolve',
        '--skip-log-bin',
        '--innodb-buffer-pool-size=32M',
        '--innodb-flush-log-at-trx-commit=0',
        '--innodb-doublewrite=0',
      ],
      { stdio: 'ignore' },
    )
    server = started
    await until(() => existsSync(socket) || started.exitCode !== null, {
      what: 'mariadbd to listen',
      timeoutMs: 30_000,
    })
    if (started.exitCode !== null)
      throw new Error(`mariadbd exited with ${started.exitCode} (log: ${dir}/error.log)`)
  } catch (error) {
    await stop()
    throw error
  }
  return {
    host: `127.0.0.1:${port}`,
    user: 'root',
    async query(sql, database) {
      const args = [
        '--no-defaults',
        `--socket=${socket}`,
        '-uroot',
        '--batch',
        '--skip-column-names',
        '-e',
        sql,
      ]
      const { stdout } = await run('mariadb', database ? [...args, database] : args)
      return stdout
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => line.split('\t'))
    },
    stop,
  }
}
