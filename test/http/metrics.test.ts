import { afterAll, beforeAll, expect, test } from 'vitest'
import { actionTurn, doneTurn, type FakeOpenAI, startFakeOpenAI } from '../support/fake-openai.ts'
import { postRun, readSse, startHarness } from './support.ts'

let fake: FakeOpenAI
beforeAll(async () => {
  fake = await startFakeOpenAI()
})
afterAll(() => fake.close())

/** The value of one sample line (`name{labels} value`) of a Prometheus text page. */
function sample(page: string, series: string): number | undefined {
  const line = page.split('\n').find((text) => text.startsWith(`${series} `))
  return line === undefined ? undefined : Number(line.slice(series.length + 1))
}

test('GET /metrics counts runs by outcome, steps, model latency and tokens in Prometheus text', async () => {
  const harness = await startHarness({ fake })
  try {
    fake.enqueue(
      actionTurn('wait', { seconds: 0.01 }, { usage: { promptTokens: 100, completionTokens: 10 } }),
      doneTurn('Waited.', true, { usage: { promptTokens: 120, completionTokens: 12 } }),
    )
    await readSse(await postRun(harness.url, { task: 'Wait, then finish.' }))
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
