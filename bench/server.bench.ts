// The HTTP server's costs, as figures side by side (no pass/fail):
//   1. time from POST /v1/runs to the first event, with a warm browser;
//   2. runs per minute and memory (this process and its Chromium children, read
//      from /proc) at 1, 4 and 8 concurrent runs, zero-latency model, local page;
//   3. the cost of storing events: stream throughput with the SQLite store vs the
//      in-memory store, same run.
// Run: node bench/server.bench.ts   (SEXTANT_BENCH_SECONDS sets the length of each concurrency window)
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pino } from 'pino'
import { runAgent } from '../src/agent/loop.ts'
import { openBrowserPool } from '../src/cli/browser-pool.ts'
import { loadConfig } from '../src/config.ts'
import { startServer } from '../src/server/server.ts'
import { MemoryRunStore } from '../src/store/memory-store.ts'
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
import { runToDone } from './run-to-done.ts'

const windowSeconds = Number(process.env.SEXTANT_BENCH_SECONDS ?? 20)
const dir = mkdtempSync(join(tmpdir(), 'sextant-bench-'))
const log = pino({ level: 'info', base: undefined }, pino.destination('/dev/null'))

const page = await startPageServer({
  pages: {
    '/': '<!doctype html><title>Bench Page</title><h1>Bench</h1><p>Figures.</p><a href="#x">Link</a>',
  },
})
const pageUrl = `${page.url}/`

/** 3000 text deltas, then done: a stream-heavy run for the store comparison. */
const chattyTurn = {
  output: agentOutput({ done: { text: 'Streamed.', success: true } }),
  text: 'word '.repeat(3000),
  textPieces: 3000,
}
const fake = await startFakeOpenAI({
  fallback: (request) => {
    const prompt = promptText(request)
    if (prompt.includes('CHATTY')) return chattyTurn
    // Zero latency: open the local page, then finish.
    return prompt.includes('Bench Page') ? doneTurn('Read the bench page.') : navigateTurn(pageUrl)
  },
})

const config = {
  host: '127.0.0.1',
  port: 0,
  maxRuns: 8,
  maxTurns: 10,
  model: 'fake/bench',
  baseUrl: fake.baseUrl,
}

// ── 1 and 2: with Chromium and the SQLite store ───────────────────────────
const pool = openBrowserPool(loadConfig({ SEXTANT_RUNS_DIR: join(dir, 'runs') }), log)
const sqlite = new SqliteRunStore(join(dir, 'bench.db'))
const server = await startServer({ config, store: sqlite, browser: pool.newSession, runAgent, log })

await runToDone(server.url, 'Warm up the browser.')
const firstEvent: number[] = []
for (let index = 0; index < 20; index++)
  firstEvent.push((await runToDone(server.url, `First event ${index}.`)).firstEventMs)

const idle = memory()
const rows: { concurrency: number; runsPerMinute: number; rss: number; pss: number; peakRss: number }[] = []
for (const concurrency of [1, 4, 8]) rows.push(await loadWindow(server.url, concurrency))
await server.close()
await pool.close()
sqlite.close()

// ── 3: the cost of storing, same stream-heavy run, no browser ─────────────
// Rounds in ABBA order, so warm-up, garbage collection and noise fall on both stores alike.
const throughput = { memory: [] as number[], sqlite: [] as number[] }
const writes = { memory: newTotals(), sqlite: newTotals() }
for (let round = 0; round < 6; round++) {
  const order = round % 2 === 0 ? (['memory', 'sqlite'] as const) : (['sqlite', 'memory'] as const)
  for (const kind of order) {
    const store =
      kind === 'memory' ? new MemoryRunStore() : new SqliteRunStore(join(dir, `stream-${round}.db`))
    const { rate, wallMs } = await streamThroughput(timedStore(store, writes[kind]))
    throughput[kind].push(rate)
    writes[kind].wallMs += wallMs
  }
}

await fake.close()
await page.close()
rmSync(dir, { recursive: true, force: true })

// ── Report ─────────────────────────────────────────────────────────────────
const mb = (kb: number) => `${(kb / 1024).toFixed(0)} MB`
const sorted = [...firstEvent].sort((a, b) => a - b)
console.log('\nTime from POST /v1/runs to the first event (warm browser, 20 runs one after another)')
console.log(
  `  median ${ms(percentile(sorted, 50))} · p95 ${ms(percentile(sorted, 95))} · max ${ms(sorted.at(-1) ?? Number.NaN)}   (target ≤ 50 ms)`,
)

console.log(
  `\nConcurrent runs, zero-latency model, local page, ${windowSeconds} s each (this process + Chromium)`,
)
console.log(
  '  (RSS summed over processes counts pages Chromium processes share once per process; PSS splits them)',
)
console.log(`  idle after warm-up: RSS ${mb(idle.rss)} · PSS ${mb(idle.pss)}`)
console.log('  runs  runs/min  RSS avg  RSS peak  PSS avg')
for (const row of rows) {
  console.log(
    `  ${String(row.concurrency).padStart(4)}  ${row.runsPerMinute.toFixed(0).padStart(8)}  ${mb(row.rss).padStart(7)}  ${mb(row.peakRss).padStart(8)}  ${mb(row.pss).padStart(7)}`,
  )
}
const one = rows[0]
if (!one) throw new Error('No concurrency level was measured.')
for (const row of rows.slice(1)) {
  const extra = row.concurrency - one.concurrency
  console.log(
    `  memory per additional live run (1 → ${row.concurrency}): RSS +${mb((row.rss - one.rss) / extra)} · PSS +${mb((row.pss - one.pss) / extra)}   (target ≤ 60 MB)`,
  )
}

const memoryRate = median(throughput.memory)
const sqliteRate = median(throughput.sqlite)
console.log(
  '\nStream throughput, same stream-heavy run (3000 text deltas), median of 6 rounds of 5 runs each',
)
console.log(
  `  in-memory store ${memoryRate.toFixed(0)} events/s · SQLite store ${sqliteRate.toFixed(0)} events/s · difference ${(((memoryRate - sqliteRate) / memoryRate) * 100).toFixed(1)}%   (target ≤ 10%)`,
)
for (const kind of ['memory', 'sqlite'] as const) {
  const totals = writes[kind]
  console.log(
    `  ${kind === 'memory' ? 'in-memory' : 'SQLite'} writes: ${((totals.ms / totals.wallMs) * 100).toFixed(1)}% of the streaming time, ${totals.batches} batches for ${totals.events} events (${(totals.events / totals.batches).toFixed(0)} per batch)`,
  )
}
process.exit(0)

// ── Helpers ────────────────────────────────────────────────────────────────

async function loadWindow(url: string, concurrency: number) {
  const until = performance.now() + windowSeconds * 1000
  let completed = 0
  const samples: { rss: number; pss: number }[] = []
  const sampler = setInterval(() => samples.push(memory()), 250)
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      for (let index = 0; performance.now() < until; index++) {
        await runToDone(url, `Load ${concurrency}/${worker}/${index}.`)
        completed++
      }
    }),
  )
  clearInterval(sampler)
  const average = (key: 'rss' | 'pss') =>
    samples.reduce((sum, sample) => sum + sample[key], 0) / samples.length
  return {
    concurrency,
    runsPerMinute: (completed / windowSeconds) * 60,
    rss: average('rss'),
    pss: average('pss'),
    peakRss: Math.max(...samples.map((sample) => sample.rss)),
  }
}

async function streamThroughput(store: RunStore): Promise<{ rate: number; wallMs: number }> {
  const streamServer = await startServer({ config, store, browser: null, runAgent, log })
  let events = 0
  const started = performance.now()
  for (let index = 0; index < 5; index++)
    events += (await runToDone(streamServer.url, `CHATTY ${index}`)).events
  const wallMs = performance.now() - started
  await streamServer.close()
  await store.close()
  return { rate: events / (wallMs / 1000), wallMs }
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
function timedStore(store: RunStore, totals: WriteTotals): RunStore {
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

function median(values: number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  )
}

/** Resident memory of this process and every descendant (Chromium's processes), in kB. */
function memory(): { rss: number; pss: number } {
  const parents = new Map<number, number[]>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)])
    } catch {
      // The process ended while we looked.
    }
  }
  const tree: number[] = []
  const queue = [process.pid]
  for (let pid = queue.shift(); pid !== undefined; pid = queue.shift()) {
    tree.push(pid)
    queue.push(...(parents.get(pid) ?? []))
  }
  let rss = 0
  let pss = 0
  for (const pid of tree) {
    try {
      rss += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0)
      pss += Number(/Pss:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0)
    } catch {
      // Gone meanwhile.
    }
  }
  return { rss, pss }
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN
}

function ms(value: number): string {
  return `${value.toFixed(1)} ms`
}
