import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { runAgent } from '../../src/agent/loop.ts'
import type { SextantServer } from '../../src/server/server.ts'
import { startServer } from '../../src/server/server.ts'
import type { ServerConfig } from '../../src/server/server-options.ts'
import { PostgresRunStore } from '../../src/store/postgres/postgres-store.ts'
import { capturingLogger } from '../server/support.ts'
import { fakeBrowser } from '../support/fake-browser.ts'
import type { FakeOpenAI } from '../support/models/fake-openai.ts'

export interface ClusterServer {
  url: string
  server: SextantServer
  store: PostgresRunStore
  logs: Record<string, unknown>[]
  close(): Promise<void>
}

/** One Sextant server in this process on the shared database, its browser the fake one, its model the fake endpoint. */
export async function startClusterServer(
  databaseUrl: string,
  fake: FakeOpenAI,
  config: Partial<ServerConfig> = {},
): Promise<ClusterServer> {
  const store = new PostgresRunStore(databaseUrl, { maxConnections: 4 })
  await store.ready()
  const { log, logs } = capturingLogger()
  const server = await startServer({
    config: {
      host: '127.0.0.1',
      port: 0,
      maxRuns: 2,
      maxTurns: 10,
      model: 'fake/agent-model',
      baseUrl: fake.baseUrl,
      heartbeatMs: 200,
      leaseMs: 2000,
      ...config,
    },
    store,
    browser: async () => fakeBrowser(),
    runAgent,
    log,
  })
  return {
    url: server.url,
    server,
    store,
    logs,
    close: async () => {
      await server.close()
      await store.close()
    },
  }
}

export interface ChildServer {
  url: string
  child: ChildProcessWithoutNullStreams
  stderr(): string
  /** Stops it with SIGTERM (a graceful stop) unless it is gone already. */
  close(): Promise<void>
}

const childScript = fileURLToPath(new URL('../support/serve-child.ts', import.meta.url))

/**
 * A server in its own process (test/support/serve-child.ts), so a test can
 * kill -9 it; `wrapper` runs it under another command (`faketime -f -30s`,
 * `unshare --pid …`). Neither of those execs it (each forks the server and
 * waits), so the server gets a process group of its own and `close` stops
 * the whole group: SIGTERM to the wrapper alone left the server running,
 * heartbeating, for the rest of the suite.
 */
export async function startChildServer(
  env: Record<string, string>,
  wrapper: string[] = [],
): Promise<ChildServer> {
  const [command = process.execPath, ...args] = [...wrapper, process.execPath, childScript]
  const child = spawn(command, args, {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, SEXTANT_PORT: '0', ...env },
    detached: true,
  })
  let out = ''
  let err = ''
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8')
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8')
      const line = out.split('\n').find((text) => text.startsWith('{'))
      if (line) resolve((JSON.parse(line) as { url: string }).url)
    })
    child.once('exit', (code) => reject(new Error(`The server exited (${code}) before listening:\n${err}`)))
  })
  return {
    url,
    child,
    stderr: () => err,
    close: async () => {
      if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
        try {
          process.kill(-child.pid, 'SIGTERM')
        } catch {
          // The group is gone already.
        }
      }
      await exited
    },
  }
}
