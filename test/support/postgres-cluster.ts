import { execFileSync, spawnSync } from 'node:child_process'
import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestProject } from 'vitest/node'
import { findPostgresBin } from './suite/test-tools.ts'

/**
 * Vitest globalSetup: one throwaway PostgreSQL cluster for the whole run,
 * never a system service. initdb into a temp folder, pg_ctl start on a free
 * port with the socket in that folder, as the `postgres` user when run as root
 * (initdb refuses root); stopped and removed at the end. Test files make their
 * own database in it (test/support/postgres.ts).
 *
 * Without the server binaries the Postgres tests are skipped, named in the
 * suite's report (test-tools.ts); under CI the tools check fails the run first.
 */

declare module 'vitest' {
  export interface ProvidedContext {
    /** Admin URL of the throwaway cluster; '' when PostgreSQL is not installed (outside CI). */
    postgresAdminUrl: string
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}

export interface Cluster {
  url: string
  /** Stops it at once (as a crash would), keeping its data for up(). */
  down(): void
  /** Starts it again on the same port and data. */
  up(): void
  stop(): void
}

/**
 * Starts a cluster; the caller stops it. `durable`: a commit is acknowledged
 * only once its WAL is written, so a crash (down()) keeps every acknowledged
 * write; without it commits are acknowledged early, for speed.
 */
export async function startCluster(bin: string, options: { durable?: boolean } = {}): Promise<Cluster> {
  const dir = mkdtempSync(join(tmpdir(), 'sextant-pg-'))
  const asRoot = process.getuid?.() === 0
  const run = (tool: string, args: string[]) => {
    const command = asRoot ? 'runuser' : join(bin, tool)
    const commandArgs = asRoot ? ['-u', 'postgres', '--', join(bin, tool), ...args] : args
    execFileSync(command, commandArgs, { stdio: ['ignore', 'pipe', 'pipe'] })
  }
  if (asRoot) execFileSync('chown', ['postgres:postgres', dir])
  chmodSync(dir, 0o700)
  const data = join(dir, 'data')
  const port = await freePort()
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8'])
  const commits = options.durable ? '' : ' -c synchronous_commit=off'
  const settings = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off${commits} -c full_page_writes=off -c max_connections=300`
  const up = () => run('pg_ctl', ['-D', data, '-o', settings, '-l', join(dir, 'log'), '-w', 'start'])
  const down = () => {
    const args = ['-D', data, '-m', 'immediate', '-w', 'stop']
    if (asRoot) spawnSync('runuser', ['-u', 'postgres', '--', join(bin, 'pg_ctl'), ...args])
    else spawnSync(join(bin, 'pg_ctl'), args)
  }
  up()
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    down,
    up,
    stop: () => {
      down()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  const bin = findPostgresBin()
  if (!bin) {
    // test-tools-check.ts has failed a CI run already, and the suite's report names what skipped.
    project.provide('postgresAdminUrl', '')
    return () => {}
  }
  const cluster = await startCluster(bin)
  project.provide('postgresAdminUrl', cluster.url)
  return () => cluster.stop()
}
