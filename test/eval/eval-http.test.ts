import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type FixtureServer, serveFixtures } from '../../src/eval/fixture-server.ts'
import { toJUnit } from '../../src/eval/junit.ts'
import { type EvalEvent, EvalEventSchema, type EvalReport } from '../../src/events/eval-events.ts'
import { AgentEventSchema } from '../../src/events/events.ts'
import { type Harness, json, readSse, type SseMessage, startHarness } from '../server/support.ts'
import { type FakeOpenAI, startFakeOpenAI } from '../support/models/fake-openai.ts'
import { evalTestTurn } from './eval-model.ts'

const fixturesDir = join(import.meta.dirname, 'fixtures')
let fake: FakeOpenAI
let fixtures: FixtureServer
let harness: Harness

beforeAll(async () => {
  fake = await startFakeOpenAI({ fallback: evalTestTurn })
  fixtures = await serveFixtures(fixturesDir)
  harness = await startHarness({ fake, browser: 'chromium' })
})
afterAll(async () => {
  await harness?.close()
  await fixtures?.close()
  await fake?.close()
})

function postEval(body: unknown): Promise<Response> {
  return fetch(`${harness.url}/v1/evals`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
}

/** The test suite's YAML with its {{fixtures}} pointing at the served folder. */
function suiteText(): string {
  return readFileSync(join(fixturesDir, 'suite.yaml'), 'utf8').replaceAll('{{fixtures}}', fixtures.url)
}

describe('POST /v1/evals', () => {
  test('streams the runs’ events and eval_* events, ending with the report; each run is stored', async () => {
    const response = await postEval({ suite: suiteText(), concurrency: 2 })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/)
    const messages = await readSse(response)
    const frames = messages.map((message) => message.data as unknown as { type: string })
    const evalEvents: EvalEvent[] = frames
      .filter((frame) => frame.type.startsWith('eval_'))
      .map((frame) => EvalEventSchema.parse(frame))
    // Every other frame is a run event, valid in the run vocabulary.
    for (const frame of frames.filter((frame) => !frame.type.startsWith('eval_')))
      AgentEventSchema.parse(frame)
    expect(messages.map((message) => Number(message.id))).toEqual(messages.map((_, index) => index))

    expect(evalEvents[0]).toMatchObject({ type: 'eval_started', total: 4, concurrency: 2 })
    const finishedRuns = evalEvents.filter((event) => event.type === 'eval_run_finished')
    expect(finishedRuns).toHaveLength(4)
    expect(evalEvents.filter((event) => event.type === 'eval_progress').map((event) => event.done)).toEqual([
      1, 2, 3, 4,
    ])
    const last = evalEvents.at(-1)
    if (last?.type !== 'eval_finished') throw new Error(`last eval event is ${last?.type}`)
    expect(last.report.totals).toMatchObject({ runs: 4, passedRuns: 2 })
    expect(frames.filter((frame) => frame.type === 'done')).toHaveLength(4)

    const runId = last.report.tasks.find((task) => task.id === 'pass-page')?.runs[0]?.runId
    const run = await json(await fetch(`${harness.url}/v1/runs/${runId}`))
    // fake/agent-model has no price: its cost is null, not 0.
    expect(run).toMatchObject({ id: runId, status: 'completed', steps: 2, costUsd: null })
  })

  test('a bad suite is a 400 that names the line; {{fixtures}} cannot be served over HTTP', async () => {
    const bad = await postEval({ suite: 'tasks:\n  - id: a\n    task: t\n' })
    expect(bad.status).toBe(400)
    expect((await json<{ error: { message: string } }>(bad)).error.message).toMatch(
      /line 2: tasks\.0\.startUrl: .*expected string/,
    )
    const withFixtures = await postEval({ suite: readFileSync(join(fixturesDir, 'suite.yaml'), 'utf8') })
    expect(withFixtures.status).toBe(400)
    expect((await json<{ error: { message: string } }>(withFixtures)).error.message).toContain('{{fixtures}}')
  })

  test('a task with maxCostUsd on a model without a price is a 400 that says why, before any run starts', async () => {
    const capped = await postEval({
      suite: {
        tasks: [
          { id: 'capped', task: 't', startUrl: 'about:blank', maxCostUsd: 1, check: { resultIncludes: 'x' } },
        ],
      },
    })
    expect(capped.status).toBe(400)
    expect((await json<{ error: { message: string } }>(capped)).error.message).toContain(
      'task capped: maxCostUsd needs a priced model, and fake/agent-model has no price',
    )
  })
})

describe('POST /v1/evals: secrets come from the request, never the server’s environment', () => {
  test('a suite naming an environment variable the server has is refused with a 400 that says why', async () => {
    process.env.SEXTANT_EVAL_TEST_SERVER_SECRET = 'the-server-own-secret-5521'
    try {
      const response = await postEval({
        suite: {
          tasks: [
            {
              id: 'steal',
              task: 'Type the password.',
              startUrl: `${fixtures.url}/sign-in.html`,
              secrets: { password: 'SEXTANT_EVAL_TEST_SERVER_SECRET' },
              check: { js: "document.getElementById('password').value" },
            },
          ],
        },
      })
      expect(response.status).toBe(400)
      const body = await response.text()
      expect(body).toContain(
        'secret \\"password\\" names the environment variable SEXTANT_EVAL_TEST_SERVER_SECRET',
      )
      expect(body).toContain("never reads the server's environment")
      expect(body).not.toContain('the-server-own-secret-5521')
    } finally {
      delete process.env.SEXTANT_EVAL_TEST_SERVER_SECRET
    }
  })

  test('a secret value in the body reaches the page, and a js check reading it back is scrubbed everywhere', async () => {
    const value = 'sw0rdfish-7731'
    const response = await postEval({
      suite: {
        name: 'secrets',
        tasks: [
          {
            id: 'type-it',
            task: 'Type the password.',
            startUrl: `${fixtures.url}/sign-in.html`,
            maxTurns: 3,
            check: { js: "document.getElementById('password').value" },
          },
        ],
      },
      taskSecrets: { 'type-it': { password: { value, domains: ['127.0.0.1'] } } },
    })
    expect(response.status).toBe(200)
    const raw = await response.text()
    expect(raw).not.toContain(value)
    const finished = raw
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice('data: '.length)) as { type: string; report?: EvalReport })
      .find((event) => event.type === 'eval_finished')
    const run = finished?.report?.tasks[0]?.runs[0]
    // The page held the value (the check read it), and what the check returned is the placeholder.
    expect(run?.failedChecks).toEqual([
      `js: document.getElementById('password').value returned "<secret>password</secret>", not true`,
    ])
    expect(run?.passed).toBe(false)
  })
})

describe('POST /v1/evals: a run passes only when the model ended it', () => {
  test('a run out of turns on a page that satisfies its checks fails, with its reason in the report and JUnit', async () => {
    const response = await postEval({
      suite: {
        name: 'luck',
        tasks: [
          {
            id: 'out-of-turns',
            task: `Open the done page at ${fixtures.url}/done.html#done.`,
            startUrl: `${fixtures.url}/index.html`,
            // The model navigates at step 1 and would call done at step 2: the turns run out first.
            maxTurns: 1,
            check: { urlMatches: '/done\\.html#done$' },
          },
        ],
      },
    })
    expect(response.status).toBe(200)
    const report = reportOf(await readSse(response))
    const run = report.tasks[0]?.runs[0]
    expect(run).toMatchObject({ reason: 'max_turns', failedChecks: [], passed: false })
    expect(report.totals.passedRuns).toBe(0)
    expect(toJUnit(report)).toContain('<failure message="the run ended max_turns, not model_stop">')
  })
})

describe('POST /v1/evals: a refusal', () => {
  test("a run the model refused fails with reason error, its outcome and the refusal's words in the report", async () => {
    const response = await postEval({
      suite: {
        name: 'refused',
        tasks: [
          {
            id: 'refused',
            task: 'Refuse this task.',
            startUrl: `${fixtures.url}/index.html`,
            check: { resultIncludes: 'anything' },
          },
        ],
      },
    })
    expect(response.status).toBe(200)
    const run = reportOf(await readSse(response)).tasks[0]?.runs[0]
    expect(run).toMatchObject({
      reason: 'error',
      passed: false,
      outcome: { kind: 'refusal', providerReason: 'refusal' },
      resultText: `The model refused the task: "I'm sorry, I can't help with that."`,
    })
  })
})

function reportOf(messages: SseMessage[]): EvalReport {
  const last = messages.at(-1)?.data as unknown as EvalEvent | undefined
  if (last?.type !== 'eval_finished') throw new Error(`the stream ended with ${last?.type}`)
  return last.report
}
