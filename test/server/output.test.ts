import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { PostgresRunStore } from '../../src/store/postgres/postgres-store.ts'
import type { RunStore } from '../../src/store/run-store.ts'
import { SqliteRunStore } from '../../src/store/sqlite-store.ts'
import {
  actionTurn,
  agentOutput,
  type FakeOpenAI,
  navigateTurn,
  startFakeOpenAI,
} from '../support/models/fake-openai.ts'
import { createTestDatabase, hasPostgres } from '../support/postgres.ts'
import { events, json, postRun, readSse, runIdOf, startHarness, startTestPage } from './support.ts'

// Typed results over HTTP: a run in real Chromium with an output schema, stored in each store.

const output = {
  type: 'object',
  properties: { answer: { type: 'integer' }, source: { type: 'string' } },
  required: ['answer'],
  additionalProperties: false,
}
const doneWith = (data: unknown) => ({
  output: agentOutput({ done: { text: 'The answer is on the page.', success: true, data } }, 'Report.'),
})

async function postgresStore(): Promise<RunStore> {
  const store = new PostgresRunStore(await createTestDatabase('output'), { maxConnections: 2 })
  await store.ready()
  return store
}
const stores: [string, () => Promise<RunStore>][] = [
  ['SqliteRunStore', async () => new SqliteRunStore(':memory:')],
  ...(hasPostgres ? [['PostgresRunStore', postgresStore] as [string, () => Promise<RunStore>]] : []),
]

let fake: FakeOpenAI
let page: Awaited<ReturnType<typeof startTestPage>>
beforeAll(async () => {
  fake = await startFakeOpenAI()
  page = await startTestPage()
})
afterAll(async () => {
  await page?.close()
  await fake?.close()
})

describe.each(stores)('with %s', (_name, openStore) => {
  test('the model fixes data that does not match; done, GET and the store carry exactly the valid data', async () => {
    const harness = await startHarness({ fake, browser: 'chromium', store: await openStore() })
    try {
      fake.enqueue(
        navigateTurn(page.url),
        doneWith({ answer: 'forty-two' }),
        doneWith({ answer: 42, source: 'the test page' }),
      )
      const response = await postRun(harness.url, { task: 'What is the answer?', output })
      expect(response.status).toBe(200)
      const list = events(await readSse(response))
      const results = list.filter((event) => event.type === 'tool_call_result')
      expect(results[1]).toMatchObject({ ok: false })
      expect(results[1]?.type === 'tool_call_result' && results[1].result).toContain(
        'data/answer must be integer',
      )
      const valid = { answer: 42, source: 'the test page' }
      expect(list.at(-1)).toMatchObject({
        type: 'done',
        reason: 'model_stop',
        result: { success: true, data: valid },
      })
      const id = runIdOf(response)
      const shown = await json(await fetch(`${harness.url}/v1/runs/${id}`))
      expect(shown).toMatchObject({ status: 'completed', result: { success: true, data: valid } })
      expect((await harness.store.getRun(id))?.result).toEqual({
        success: true,
        text: 'The answer is on the page.',
        data: valid,
      })
    } finally {
      await harness.close()
    }
  })
})

describe('the request', () => {
  test('an invalid output schema is a 400 naming the problem, and nothing runs', async () => {
    const harness = await startHarness({ fake, browser: null })
    try {
      const bad = await postRun(harness.url, {
        task: 't',
        output: { type: 'object', properties: { a: { type: 'integr' } } },
      })
      expect(bad.status).toBe(400)
      const body = await json<{ error: { message: string } }>(bad)
      expect(body.error.message).toMatch(/^Invalid request body: output: .*output\/properties\/a\/type/)
      const notObject = await postRun(harness.url, { task: 't', output: ['not', 'a', 'schema'] })
      expect(notObject.status).toBe(400)
      expect((await json<{ runs: unknown[] }>(await fetch(`${harness.url}/v1/runs`))).runs).toEqual([])
    } finally {
      await harness.close()
    }
  })

  test('a recursive or over-deep output schema is a 400 at submit, for runs and evals, never a 500', async () => {
    const harness = await startHarness({ fake, browser: null })
    let deep: Record<string, unknown> = { type: 'string' }
    for (let i = 0; i < 1000; i++) deep = { type: 'array', items: deep }
    try {
      for (const [schema, problem] of [
        [{ $ref: '#' }, 'has a recursive $ref'],
        [{ type: 'object', allOf: [{ $ref: '#' }] }, 'has a recursive $ref'],
        [deep, 'is nested deeper than 64 levels'],
      ] as const) {
        const run = await postRun(harness.url, { task: 't', output: schema })
        expect(run.status).toBe(400)
        expect((await json<{ error: { message: string } }>(run)).error.message).toContain(
          `"output" ${problem}`,
        )
        const evaluation = await fetch(`${harness.url}/v1/evals`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            suite: { tasks: [{ id: 'a', task: 't', output: schema, check: { js: 'true' } }] },
          }),
        })
        expect(evaluation.status).toBe(400)
        expect(await evaluation.text()).toContain(problem)
      }
      expect((await json<{ runs: unknown[] }>(await fetch(`${harness.url}/v1/runs`))).runs).toEqual([])
    } finally {
      await harness.close()
    }
  })

  test('secret values in the data are scrubbed from the stream and the stored run', async () => {
    const harness = await startHarness({ fake, browser: null })
    try {
      fake.enqueue(
        actionTurn('done', { text: 'Read it.', success: true, data: { type: 'pw: s3cr3t-value' } }),
      )
      const response = await postRun(harness.url, {
        task: 'Read the password',
        secrets: { pw: 's3cr3t-value' },
        output: { type: 'object' },
      })
      const list = events(await readSse(response))
      expect(JSON.stringify(list)).not.toContain('s3cr3t-value')
      expect(list.at(-1)).toMatchObject({ result: { data: { type: 'pw: <secret>pw</secret>' } } })
      const shown = await json(await fetch(`${harness.url}/v1/runs/${runIdOf(response)}`))
      expect(JSON.stringify(shown)).not.toContain('s3cr3t-value')
    } finally {
      await harness.close()
    }
  })
})
