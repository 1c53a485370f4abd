import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { MockLanguageModelV4 } from 'ai/test'
import { createParser } from 'eventsource-parser'
import { pino } from 'pino'
import { runAgent } from '../../src/agent/loop.ts'
import type { BrowserSessionFactory } from '../../src/browser/browser-session.ts'
import { openBrowserPool } from '../../src/cli/browser-pool.ts'
import { loadConfig } from '../../src/config.ts'
import type { AgentEvent } from '../../src/events/events.ts'
import type { Logger } from '../../src/log.ts'
import { silentLogger } from '../../src/log.ts'
import type { RunAgent } from '../../src/server/runs/run-launcher.ts'
import { RunManager } from '../../src/server/runs/run-manager.ts'
import { type SextantServer, startServer } from '../../src/server/server.ts'
import type { ServerConfig } from '../../src/server/server-options.ts'
import { MemoryRunStore } from '../../src/store/memory-store.ts'
import type { RunStore } from '../../src/store/run-store.ts'
import { SqliteRunStore } from '../../src/store/sqlite-store.ts'
import type { FakeOpenAI } from '../support/models/fake-openai.ts'
import { type PageServer, startPageServer } from '../support/page-server.ts'
import { sharedLaunch } from '../support/suite/shared-browser.ts'

export interface Harness {
  url: string
  server: SextantServer
  store: RunStore
  logs: Record<string, unknown>[]
  /** The runs folder (downloads, step screenshots), removed on close. */
  runsDir: string
  close(): Promise<void>
}

export interface HarnessOptions {
  fake: FakeOpenAI
  /** A real headless Chromium pool, or none (runs with only done, wait and ask_user), or a factory of the test's own. */
  browser?: 'chromium' | null | BrowserSessionFactory
  store?: RunStore
  config?: Partial<ServerConfig>
  heartbeatMs?: number
  /** Keep the store open on close (for restart tests). */
  keepStore?: boolean
}

/** The real server on an ephemeral port, its model the fake endpoint reached through a base URL. */
export async function startHarness(options: HarnessOptions): Promise<Harness> {
  const store = options.store ?? new SqliteRunStore(':memory:')
  const { log, logs } = capturingLogger()
  const runsDir = mkdtempSync(join(tmpdir(), 'sextant-runs-'))
  const pool =
    options.browser === 'chromium'
      ? openBrowserPool(
          loadConfig({ SEXTANT_RUNS_DIR: runsDir, SEXTANT_CHROMIUM: '/usr/bin/chromium' }),
          log,
          sharedLaunch,
        )
      : undefined
  const server = await startServer({
    config: {
      host: '127.0.0.1',
      port: 0,
      maxRuns: 4,
      maxTurns: 10,
      model: 'fake/agent-model',
      baseUrl: options.fake.baseUrl,
      runsDir,
      ...options.config,
    },
    store,
    browser: typeof options.browser === 'function' ? options.browser : (pool?.newSession ?? null),
    runAgent,
    log,
    ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
  })
  return {
    url: server.url,
    server,
    store,
    logs,
    runsDir,
    close: async () => {
      await server.close()
      await pool?.close()
      if (!options.keepStore) await store.close()
      rmSync(runsDir, { recursive: true, force: true })
    },
  }
}

/**
 * The real server on an ephemeral port whose browsers come from the remote
 * endpoints `env` names (SEXTANT_BROWSER_WS, SEXTANT_CDP_URL), with their health in /metrics.
 */
export async function startFleetServer(
  env: Record<string, string>,
  fake: FakeOpenAI,
): Promise<{ url: string; logs: Record<string, unknown>[]; close(): Promise<void> }> {
  const config = loadConfig(env)
  const { log, logs } = capturingLogger()
  const pool = openBrowserPool(config, log)
  const store = new SqliteRunStore(':memory:')
  const server = await startServer({
    config: { ...config, port: 0, model: 'fake/agent-model', baseUrl: fake.baseUrl },
    store,
    browser: pool.newSession,
    browserHealth: pool.health,
    runAgent,
    log,
  })
  return {
    url: server.url,
    logs,
    close: async () => {
      await server.close()
      await pool.close()
      await store.close()
    },
  }
}

export function capturingLogger(): { log: Logger; logs: Record<string, unknown>[] } {
  const logs: Record<string, unknown>[] = []
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      for (const line of String(chunk).split('\n')) if (line.trim()) logs.push(JSON.parse(line))
      callback()
    },
  })
  return { log: pino({ level: 'debug', base: undefined }, destination), logs }
}

export interface SseMessage {
  id: string | undefined
  event: string | undefined
  data: AgentEvent
}

/**
 * Reads an SSE response until it ends, or until `stop` says so, in which case
 * the connection is dropped as a client going away would.
 */
export async function readSse(
  response: Response,
  stop?: (message: SseMessage) => boolean,
): Promise<SseMessage[]> {
  if (!response.body) throw new Error('The response has no body.')
  const messages: SseMessage[] = []
  let stopped = false
  const parser = createParser({
    onEvent(message) {
      if (stopped) return
      const parsed: SseMessage = { id: message.id, event: message.event, data: JSON.parse(message.data) }
      messages.push(parsed)
      if (stop?.(parsed)) stopped = true
    },
  })
  const reader = response.body.getReader()
  const decoder = new TextDecoder()
  try {
    while (!stopped) {
      const { done, value } = await reader.read()
      if (done) break
      parser.feed(decoder.decode(value, { stream: true }))
    }
  } finally {
    if (stopped) await reader.cancel()
  }
  return messages
}

export function events(messages: SseMessage[]): AgentEvent[] {
  return messages.map((message) => message.data)
}

export function postRun(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${url}/v1/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })
}

export async function json<T = Record<string, unknown>>(response: Response): Promise<T> {
  return (await response.json()) as T
}

export function runIdOf(response: Response): string {
  const location = response.headers.get('location')
  const id = location?.split('/').at(-1)
  if (!id) throw new Error(`No Location header (status ${response.status}).`)
  return id
}

const testPage = (title: string) =>
  `<!doctype html><title>${title}</title><h1>${title}</h1><p id="answer">The answer is 42.</p><a href="/second">Next</a>`

/** A local web page for the browser to visit, and its second page; `url` is the first page's. */
export async function startTestPage(): Promise<PageServer> {
  const server = await startPageServer({
    pages: { '/': testPage('Sextant Test Page'), '/second': testPage('Second Page') },
  })
  return { url: `${server.url}/`, close: () => server.close() }
}

/**
 * A run manager over a memory store, without a browser, whose model is a mock
 * ("m/m"): for what the server says of itself (routes, OpenAPI) or hands a
 * run. Its runAgent, unless given, refuses to run anything.
 */
export function quietManager(
  runAgent: RunAgent = () => {
    throw new Error('No run is started here.')
  },
  defaultMaxTurns = 1,
): RunManager {
  return new RunManager({
    store: new MemoryRunStore(),
    runAgent,
    resolveModel: () => ({ name: 'm/m', provider: 'm', modelId: 'm', model: new MockLanguageModelV4() }),
    browser: null,
    maxRuns: 1,
    defaultMaxTurns,
    log: silentLogger(),
  })
}
