// The scale-out's costs, as figures side by side in one run (no pass/fail):
//   1. runs per minute and p95 POST → first event with 1 server + SQLite,
//      1 server + PostgreSQL, and 2 servers + PostgreSQL spreading runs over 2
//      Playwright browser servers (zero-latency model, local page, real Chromium);
//   2. cross-server following: how much later an event reaches a client
//      following the run on server B than the client of its POST on server A;
//   3. the cost of storing events: stream throughput and write time with the
//      in-memory, SQLite and PostgreSQL stores, same stream-heavy run;
//   4. rows and bytes stored per step in PostgreSQL, the model streaming token
//      by token (bench/stored-per-step.ts; `--stored-only` runs only this).
// PostgreSQL is a throwaway cluster started here (test/support/postgres-cluster.ts);
// both servers of (1) and (2) run in this process, on the machine's 2 cores.
// Run: node bench/scale.bench.ts   (SEXTANT_BENCH_SECONDS sets each load window)
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createParser } from 'eventsource-parser'
import { pino } from 'pino'
import { chromium } from 'playwright-core'
import postgres from 'postgres'
import { runAgent } from '../src/agent/loop.ts'
import { openBrowserPool } from '../src/cli/browser-pool.ts'
import { loadConfig } from '../src/config.ts'
import { startServer } from '../src/server/server.ts'
import { MemoryRunStore } from '../src/store/memory-store.ts'
import { PostgresRunStore } from '../src/store/postgres/postgres-store.ts'
import type { RunStore } from '../src/store/run-store.ts'
import { SqliteRunStore } from '../src/store/sqlite-store.ts'
import {
  agentOutput,
  doneTurn,
  navigateTurn,
  promptText,
  startFakeOpenAI,
} from '../test/support/models/fake-openai.ts'
import { startPageServer } from '../test/support/page-server.ts'
import { startCluster } from '../test/support/postgres-cluster.ts'
import { findPostgresBin } from '../test/support/suite/test-tools.ts'
import { runToDone } from './run-to-done.ts'
import { storedPerStep, storedReport, storedTurn } from './stored-per-step.ts'

const windowSeconds = Number(process.env.SEXTANT_BENCH_SECONDS ?? 15)
const clients = 4
const dir = mkdtempSync(join(tmpdir(), 'sextant-scale-bench-'))
const log = pino({ level: 'info', base: undefined }, pino.destination('/dev/null'))

const bin = findPostgresBin()
if (!bin) throw new Error('PostgreSQL server binaries not found under /usr/lib/postgresql/*/bin.')
const cluster = await startCluster(bin)
let databases = 0
async function newDatabase(): Promise<string> {
  const name = `bench_${++databases}`
  const admin = postgres(cluster.url, { max: 1, onnotice: () => {} })
  await admin.unsafe(`CREATE DATABASE ${name}`)
  await admin.end()
  const url = new URL(cluster.url)
  url.pathname = `/${name}`
  return url.href
}
async function postgresStore(): Promise<PostgresRunStore> {
  return storeAt(await newDatabase())
}

const page = await startPageServer({
  pages: { '/': '<!doctype html><title>Bench Page</title><h1>Bench</h1><p>Figures.</p>' },
})
const pageUrl = `${page.url}/`
const chattyTurn = {
  output: agentOutput({ done: { text: 'Streamed.', success: true } }),
  text: 'word '.repeat(3000),
  textPieces: 3000,
}
/** 100 text deltas 10 ms apart: a run whose events can be timed on two servers. */
const pacedTurn = {
  output: agentOutput({ done: { text: 'Paced.', success: true } }),
  text: 'word '.repeat(100),
  textPieces: 100,
  chunkDelayMs: 10,
}
const fake = await startFakeOpenAI({
  fallback: (request) => {
    const prompt = promptText(request)
    if (prompt.includes('STORED')) return storedTurn(request, fake)
    if (prompt.includes('CHATTY')) return chattyTurn
    if (prompt.includes('PACED')) return pacedTurn
    return prompt.includes('Bench Page') ? doneTurn('Read the bench page.') : navigateTurn(pageUrl)
  },
})
const config = {
  host: '127.0.0.1',
  port: 0,
  maxRuns: 4,
  maxTurns: 10,
  model: 'fake/bench',
  baseUrl: fake.baseUrl,
}
const runsDir = join(dir, 'runs')

// ── 4 (first, so that it can run alone): rows and bytes stored per step ─────
const stored = await storedPerStep(await newDatabase(), fake.baseUrl, log)
if (process.argv.includes('--stored-only')) {
  await fake.close()
  await page.close()
  cluster.stop()
  rmSync(dir, { recursive: true, force: true })
  console.log(storedReport(stored))
  process.exit(0)
}

// ── 1: three layouts under the same load ───────────────────────────────────
interface LoadRow {
  layout: string
  runsPerMinute: number
  p50: number
  p95: number
}
const rows: LoadRow[] = []

{
  const pool = openBrowserPool(loadConfig({ SEXTANT_RUNS_DIR: runsDir }), log)
  const store = new SqliteRunStore(join(dir, 'load.db'))
  const server = await startServer({ config, store, browser: pool.newSession, runAgent, log })
  rows.push(await loadWindow('1 server + SQLite (local Chromium)', [server.url]))
  await server.close()
  await pool.close()
  await store.close()
}
{
  const pool = openBrowserPool(loadConfig({ SEXTANT_RUNS_DIR: runsDir }), log)
  const store = await postgresStore()
  const server = await startServer({ config, store, browser: pool.newSession, runAgent, log })
  rows.push(await loadWindow('1 server + PostgreSQL (local Chromium)', [server.url]))
  await server.close()
  await pool.close()
  await store.close()
}
{
  const browserServers = await Promise.all(
    [1, 2].map(() =>
      chromium.launchServer({
        executablePath: '/usr/bin/chromium',
        args: ['--no-sandbox'],
        host: '127.0.0.1',
      }),
    ),
  )
  const fleet = browserServers.map((browser) => browser.wsEndpoint()).join(',')
  const database = await newDatabase()
  const servers = []
  for (let index = 0; index < 2; index++) {
    const pool = openBrowserPool(loadConfig({ SEXTANT_RUNS_DIR: runsDir, SEXTANT_BROWSER_WS: fleet }), log)
    const store = new PostgresRunStore(database)
    await store.ready()
    const server = await startServer({ config, store, browser: pool.newSession, runAgent, log })
    servers.push({ server, pool, store })
  }
  rows.push(
    await loadWindow(
      '2 servers + PostgreSQL (2 browser servers)',
      servers.map(({ server }) => server.url),
    ),
  )
  for (const { server, pool, store } of servers) {
    await server.close()
    await pool.close()
    await store.close()
  }
  for (const browser of browserServers) await browser.close()
}

// ── 2: following a run on A from B ─────────────────────────────────────────
const lags: number[] = []
{
  const database = await newDatabase()
  const a = await startServer({ config, store: await storeAt(database), browser: null, runAgent, log })
  const b = await startServer({ config, store: await storeAt(database), browser: null, runAgent, log })
  for (let round = 0; round < 10; round++) {
    const arrivalsA = new Map<string, number>()
    const arrivalsB = new Map<string, number>()
    const posted = await fetch(`${a.url}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ task: `PACED ${round}` }),
    })
    const id = posted.headers.get('x-run-id') ?? ''
    const followed = await fetch(`${b.url}/v1/runs/${id}/events`)
    await Promise.all([readStream(posted, arrivalsA), readStream(followed, arrivalsB)])
    for (const [seq, at] of arrivalsB) {
      const onA = arrivalsA.get(seq)
      // The first events were stored before B connected: only those B received live count.
      if (onA !== undefined && Number(seq) > 5) lags.push(at - onA)
    }
  }
  for (const server of [a, b]) {
    await server.close()
    await server.manager.store.close()
  }
}

// ── 3: the cost of storing events ──────────────────────────────────────────
// Rounds in rotating order, so warm-up, garbage collection and noise fall on every store alike.
const kinds = ['memory', 'sqlite', 'postgres'] as const
type Kind = (typeof kinds)[number]
const throughput: Record<Kind, number[]> = { memory: [], sqlite: [], postgres: [] }
const writes: Record<Kind, WriteTotals> = { memory: newTotals(), sqlite: newTotals(), postgres: newTotals() }
const sizes = { sqlite: 0, postgres: 0, sqliteEvents: 0, postgresEvents: 0 }
for (let round = 0; round < 6; round++) {
  for (let turn = 0; turn < kinds.length; turn++) {
    const kind = kinds[(round + turn) % kinds.length] as Kind
    const sqlitePath = join(dir, `stream-${round}.db`)
    const databaseUrl = kind === 'postgres' ? await newDatabase() : ''
    const store: RunStore =
      kind === 'memory'
        ? new MemoryRunStore()
        : kind === 'sqlite'
          ? new SqliteRunStore(sqlitePath)
          : await storeAt(databaseUrl)
    const { rate, wallMs, events } = await streamThroughput(timedStore(store, writes[kind]))
    throughput[kind].push(rate)
    writes[kind].wallMs += wallMs
    if (kind === 'sqlite') {
      sizes.sqlite += statSync(sqlitePath).size + walSize(sqlitePath)
      sizes.sqliteEvents += events
    }
    if (kind === 'postgres') {
      sizes.postgres += await postgresEventBytes(databaseUrl)
      sizes.postgresEvents += events
    }
    await store.close()
  }
}

await fake.close()
await page.close()
cluster.stop()
rmSync(dir, { recursive: true, force: true })

// ── Report ─────────────────────────────────────────────────────────────────
console.log(
  `\nLoad: ${clients} clients posting runs back to back for ${windowSeconds} s per layout (navigate to a local page, then done; zero-latency model)`,
)
console.log(`  ${'layout'.padEnd(44)} runs/min  POST→first event p50   p95`)
for (const row of rows) {
  console.log(
    `  ${row.layout.padEnd(44)} ${row.runsPerMinute.toFixed(0).padStart(8)}  ${ms(row.p50).padStart(20)}  ${ms(row.p95).padStart(8)}`,
  )
}

const lagSorted = [...lags].sort((x, y) => x - y)
console.log(
  '\nFollowing a run on server A from server B (PostgreSQL, LISTEN/NOTIFY), 10 runs of 100 paced events',
)
console.log(
  `  extra delay on B over A's own stream: median ${ms(percentile(lagSorted, 50))} · p95 ${ms(percentile(lagSorted, 95))} · max ${ms(lagSorted.at(-1) ?? 0)}   (${lags.length} events)`,
)

console.log(
  '\nStoring events: same stream-heavy run (3000 text deltas), median of 6 rounds of 5 runs each, no browser',
)
const memoryRate = median(throughput.memory)
for (const kind of kinds) {
  const totals = writes[kind]
  const rate = median(throughput[kind])
  const name = { memory: 'in-memory', sqlite: 'SQLite', postgres: 'PostgreSQL' }[kind]
  console.log(
    `  ${name.padEnd(10)} ${rate.toFixed(0).padStart(6)} events/s (${(((memoryRate - rate) / memoryRate) * 100).toFixed(1).padStart(5)}% vs memory) · writes ${((totals.ms / totals.wallMs) * 100).toFixed(1)}% of the streaming time · ${(totals.ms / (totals.events / 1000)).toFixed(2)} ms per 1000 events · ${(totals.events / totals.batches).toFixed(0)} events per batch`,
  )
}
console.log(
  `  on disk per event: SQLite ${(sizes.sqlite / sizes.sqliteEvents).toFixed(0)} B · PostgreSQL ${(sizes.postgres / sizes.postgresEvents).toFixed(0)} B (table + index + TOAST)`,
)
console.log(storedReport(stored))
process.exit(0)

// ── Helpers ────────────────────────────────────────────────────────────────

async function storeAt(url: string): Promise<PostgresRunStore> {
  const store = new PostgresRunStore(url)
  await store.ready()
  return store
}

/** Reads an SSE response to its end, noting when each event (by id) arrived. */
async function readStream(response: Response, arrivals: Map<string, number>): Promise<void> {
  const parser = createParser({
    onEvent(message) {
      if (message.id !== undefined) arrivals.set(message.id, performance.now())
    },
  })
  const decoder = new TextDecoder()
  if (!response.body) throw new Error(`No body (status ${response.status}).`)
  for await (const chunk of response.body) parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }))
}

/** `clients` clients post runs back to back, spread over `urls`, for the window; after one warm-up run each. */
async function loadWindow(layout: string, urls: string[]): Promise<LoadRow> {
  for (const url of urls) await runToDone(url, 'Warm up.')
  const until = performance.now() + windowSeconds * 1000
  let completed = 0
  const firstEvents: number[] = []
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      for (let index = 0; performance.now() < until; index++) {
        const url = urls[(client + index) % urls.length] ?? ''
        const { firstEventMs } = await runToDone(url, `Load ${client}/${index}.`)
        firstEvents.push(firstEventMs)
        completed++
      }
    }),
  )
  const sorted = firstEvents.sort((x, y) => x - y)
  return {
    layout,
    runsPerMinute: (completed / windowSeconds) * 60,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
  }
}

async function streamThroughput(store: RunStore): Promise<{ rate: number; wallMs: number; events: number }> {
  const server = await startServer({ config, store, browser: null, runAgent, log })
  let events = 0
  const started = performance.now()
  for (let index = 0; index < 5; index++) events += (await runToDone(server.url, `CHATTY ${index}`)).events
  const wallMs = performance.now() - started
  await server.close()
  return { rate: events / (wallMs / 1000), wallMs, events }
}

interface WriteTotals {
  ms: number
  wallMs: number
  batches: number
  events: number
}

function newTotals(): WriteTotals {
  return { ms: 0, wallMs: 0, batches: 0, events: 0 }
}

/** The store, with the time spent in its event writes added up. */
function timedStore<S extends RunStore>(store: S, totals: WriteTotals): S {
  const appendEvents = store.appendEvents.bind(store)
  store.appendEvents = async (events) => {
    const started = performance.now()
    await appendEvents(events)
    totals.ms += performance.now() - started
    totals.batches++
    totals.events += events.length
  }
  return store
}

function walSize(path: string): number {
  try {
    return statSync(`${path}-wal`).size
  } catch {
    return 0
  }
}

async function postgresEventBytes(url: string): Promise<number> {
  const sql = postgres(url, { max: 1, onnotice: () => {} })
  const [row] = await sql<{ bytes: string }[]>`SELECT pg_total_relation_size('events')::text AS bytes`
  await sql.end()
  return Number(row?.bytes ?? 0)
}

function median(values: number[]): number {
  return percentile(
    [...values].sort((x, y) => x - y),
    50,
  )
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0
}

function ms(value: number): string {
  return `${value.toFixed(1)} ms`
}
