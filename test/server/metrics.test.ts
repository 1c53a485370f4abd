import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { ServerMetrics } from '../../src/server/metrics.ts'
import { actionTurn, doneTurn, type FakeOpenAI, startFakeOpenAI } from '../support/models/fake-openai.ts'
import { freePort } from '../support/postgres-cluster.ts'
import { postRun, readSse, startFleetServer, startHarness } from './support.ts'

let fake: FakeOpenAI
const dir = mkdtempSync(join(tmpdir(), 'sextant-metrics-'))
/** $1 per million input tokens and $2 per million output tokens. */
const prices = join(dir, 'prices.json')
beforeAll(async () => {
  fake = await startFakeOpenAI()
  writeFileSync(prices, JSON.stringify({ models: { 'fake/priced-model': { input: 1, output: 2 } } }))
})
afterAll(async () => {
  await fake.close()
  rmSync(dir, { recursive: true, force: true })
})

/** The value of one sample line (`name{labels} value`) of a Prometheus text page. */
function sample(page: string, series: string): number | undefined {
  const line = page.split('\n').find((text) => text.startsWith(`${series} `))
  return line === undefined ? undefined : Number(line.slice(series.length + 1))
}

test('GET /metrics counts runs by outcome, steps, model latency and tokens in Prometheus text', async () => {
  const harness = await startHarness({ fake, config: { prices } })
  try {
    fake.enqueue(
      actionTurn('wait', { seconds: 0.01 }, { usage: { promptTokens: 100, completionTokens: 10 } }),
      doneTurn('Waited.', true, { usage: { promptTokens: 120, completionTokens: 12 } }),
    )
    await readSse(await postRun(harness.url, { task: 'Wait, then finish.', model: 'fake/priced-model' }))
    fake.enqueue({ status: 400, text: 'Bad request.' })
    await readSse(await postRun(harness.url, { task: 'Fail at once.' }))

    const response = await fetch(`${harness.url}/metrics`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/)
    const page = await response.text()
    expect(sample(page, 'sextant_runs_started_total')).toBe(2)
    expect(sample(page, 'sextant_runs_finished_total{status="completed",reason="model_stop"}')).toBe(1)
    expect(sample(page, 'sextant_runs_finished_total{status="failed",reason="error"}')).toBe(1)
    expect(sample(page, 'sextant_live_runs')).toBe(0)
    expect(sample(page, 'sextant_step_duration_seconds_count')).toBe(3)
    expect(sample(page, 'sextant_model_latency_seconds_count')).toBe(2)
    expect(sample(page, 'sextant_tokens_total{kind="input"}')).toBe(220)
    expect(sample(page, 'sextant_tokens_total{kind="output"}')).toBe(22)
    // The priced run's 220 input and 22 output tokens; the failed run called no model, so it cost nothing.
    expect(sample(page, 'sextant_cost_usd_total')).toBeCloseTo((220 * 1 + 22 * 2) / 1_000_000, 12)
    expect(sample(page, 'sextant_runs_unpriced_total')).toBe(0)
  } finally {
    await harness.close()
  }
})

test('a run at an unknown price is counted apart, never as costing nothing', async () => {
  const harness = await startHarness({ fake, config: { prices } })
  try {
    fake.enqueue(doneTurn('Done.', true, { usage: { promptTokens: 50, completionTokens: 5 } }))
    await readSse(await postRun(harness.url, { task: 'Finish.' }))
    const page = await (await fetch(`${harness.url}/metrics`)).text()
    expect(sample(page, 'sextant_tokens_total{kind="input"}')).toBe(50)
    expect(sample(page, 'sextant_runs_unpriced_total')).toBe(1)
    expect(sample(page, 'sextant_cost_usd_total')).toBe(0)
  } finally {
    await harness.close()
  }
})

test('with SEXTANT_API_TOKEN, /metrics needs it too', async () => {
  const token = 'a-metrics-token-of-sixteen'
  const harness = await startHarness({ fake, config: { apiToken: token } })
  try {
    expect((await fetch(`${harness.url}/metrics`)).status).toBe(401)
    const allowed = await fetch(`${harness.url}/metrics`, { headers: { authorization: `Bearer ${token}` } })
    expect(allowed.status).toBe(200)
  } finally {
    await harness.close()
  }
})

test('browser endpoint labels show where each endpoint is, never the credentials in its URL', async () => {
  const [a, b] = [await freePort(), await freePort()]
  const fleet = await startFleetServer(
    {
      SEXTANT_BROWSER_WS: [
        `ws://ada:hunter2@127.0.0.1:${a}/playwright?token=tok-secret-1&stealth=true`,
        `ws://127.0.0.1:${b}/?apiKey=key-secret-2`,
        // The same endpoint as the first, for another account: its samples must not overwrite the first's.
        `ws://bob:pw-secret-3@127.0.0.1:${a}/playwright?token=tok-secret-4&stealth=true`,
      ].join(','),
      SEXTANT_RUNS_DIR: dir,
    },
    fake,
  )
  try {
    const page = await (await fetch(`${fleet.url}/metrics`)).text()
    for (const secret of ['ada', 'hunter2', 'tok-secret', 'key-secret', 'bob', 'pw-secret'])
      expect(page).not.toContain(secret)
    const first = `ws://127.0.0.1:${a}/playwright?token=***&stealth=true`
    expect(sample(page, `sextant_browser_endpoint_up{endpoint="${first}"}`)).toBe(1)
    expect(sample(page, `sextant_browser_endpoint_up{endpoint="${first}#2"}`)).toBe(1)
    expect(
      sample(page, `sextant_browser_endpoint_sessions{endpoint="ws://127.0.0.1:${b}/?apiKey=***"}`),
    ).toBe(0)
  } finally {
    await fleet.close()
  }
})

test("sextant_page_log_entries_total counts what the runs' pages reported, by kind", async () => {
  const metrics = new ServerMetrics({ liveRuns: () => 0 })
  metrics.observe({
    type: 'observation',
    runId: 'run_metrics1',
    seq: 2,
    at: new Date().toISOString(),
    url: 'http://127.0.0.1:8080/',
    title: '',
    tabs: [],
    refs: 0,
    pageViewTokens: 10,
    notes: [],
    pageLog: {
      console: [
        { level: 'error', text: 'a' },
        { level: 'error', text: 'b' },
        { level: 'exception', text: 'TypeError: c' },
      ],
      network: [
        { method: 'POST', url: 'http://127.0.0.1:8080/api', status: 500 },
        { method: 'GET', url: 'http://blocked.example/', refused: 'not in allowedDomains' },
      ],
      omitted: 7,
    },
  })
  const page = await metrics.text()
  expect(sample(page, 'sextant_page_log_entries_total{kind="error"}')).toBe(2)
  expect(sample(page, 'sextant_page_log_entries_total{kind="exception"}')).toBe(1)
  expect(sample(page, 'sextant_page_log_entries_total{kind="failed_request"}')).toBe(1)
  expect(sample(page, 'sextant_page_log_entries_total{kind="refused_request"}')).toBe(1)
  expect(sample(page, 'sextant_page_log_entries_total{kind="omitted"}')).toBe(7)
})
