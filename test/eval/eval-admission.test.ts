import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type FixtureServer, serveFixtures } from '../../src/eval/fixture-server.ts'
import type { EvalEvent } from '../../src/events/eval-events.ts'
import { type Harness, json, postRun, readSse, type SseMessage, startHarness } from '../server/support.ts'
import { type FakeOpenAI, startFakeOpenAI } from '../support/models/fake-openai.ts'
import { until } from '../support/until.ts'
import { evalTestTurn } from './eval-model.ts'

/** Evals are admitted like runs: one server with room for a single run at once. */
const fixturesDir = join(import.meta.dirname, 'fixtures')
let fake: FakeOpenAI
let fixtures: FixtureServer
let harness: Harness

beforeAll(async () => {
  fake = await startFakeOpenAI({ fallback: evalTestTurn })
  fixtures = await serveFixtures(fixturesDir)
  harness = await startHarness({ fake, browser: 'chromium', config: { maxRuns: 1 } })
})
afterAll(async () => {
  await harness?.close()
  await fixtures?.close()
  await fake?.close()
})

function postEval(task: string, id = 'slow'): Promise<Response> {
  return fetch(`${harness.url}/v1/evals`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      suite: {
        name: 'admission',
        tasks: [{ id, task, startUrl: `${fixtures.url}/index.html`, maxTurns: 20, check: { js: 'true' } }],
      },
    }),
  })
}

/** The value of one sample line (`name{labels} value`) of a Prometheus text page. */
async function metric(series: string): Promise<number | undefined> {
  const page = await (await fetch(`${harness.url}/metrics`)).text()
  const line = page.split('\n').find((text) => text.startsWith(`${series} `))
  return line === undefined ? undefined : Number(line.slice(series.length + 1))
}

describe('eval runs are admitted, counted and aborted like runs', () => {
  test('an eval holds a run slot (another eval or run is refused with 429), shows in /metrics, and DELETE aborts it', async () => {
    const response = await postEval('Wait for the slow page.')
    expect(response.status).toBe(200)
    const location = response.headers.get('location')
    expect(location).toMatch(/^\/v1\/evals\/eval_/)
    // The stream is read to its end while the test goes on.
    const reader = readSse(response)
    await until(async () => (await metric('sextant_live_runs')) === 1, { what: 'the eval run to be live' })
    expect(await metric('sextant_runs_started_total')).toBe(1)

    const secondEval = await postEval('Say hello to the tester.', 'hello')
    expect(secondEval.status).toBe(429)
    expect(secondEval.headers.get('retry-after')).not.toBeNull()
    const run = await postRun(harness.url, { task: 'Say hello to the tester.' })
    expect(run.status).toBe(429)
    await run.body?.cancel()

    const aborted = await fetch(`${harness.url}${location}`, { method: 'DELETE' })
    expect(aborted.status).toBe(200)
    expect(await json(aborted)).toEqual({ evalId: location?.split('/').at(-1), ended: true })
    const messages: SseMessage[] = await reader
    const done = messages.map((message) => message.data).find((event) => event.type === 'done')
    expect(done).toMatchObject({ type: 'done', reason: 'user_abort' })
    const last = messages.at(-1)?.data as unknown as EvalEvent | undefined
    expect(last).toMatchObject({ type: 'eval_finished', report: { totals: { runs: 1, passedRuns: 0 } } })
    expect(await metric('sextant_runs_finished_total{status="stopped",reason="user_abort"}')).toBe(1)
    expect(await metric('sextant_live_runs')).toBe(0)

    // The slot was given back: the eval is gone, and a run starts again.
    expect((await fetch(`${harness.url}${location}`, { method: 'DELETE' })).status).toBe(404)
    const after = await postEval('Say hello to the tester.', 'hello')
    expect(after.status).toBe(200)
    await readSse(after)
  })
})
