import { afterAll, beforeAll, expect, test } from 'vitest'
import type { AgentEvent } from '../../src/events/events.ts'
import type { Recording } from '../../src/recording/schema.ts'
import { type FakeOpenAI, startFakeOpenAI } from '../support/fake-openai.ts'
import { latestView, serveTodoApp, todoTask, todoTurn } from '../support/todo-flow.ts'
import { events, type Harness, json, postRun, readSse, runIdOf, startHarness } from './support.ts'

// Record once through the API with a model, then replay through the API without one.

let fake: FakeOpenAI
let harness: Harness
let recorded: Recording
let recordedRunId: string
/** The todo the model is currently asked to add (the fake model reads it from here). */
const todo = 'Buy milk'

beforeAll(async () => {
  fake = await startFakeOpenAI({ fallback: (request) => todoTurn(latestView(request), todo) })
  harness = await startHarness({ fake, browser: 'chromium' })
  const app = await serveTodoApp('original')
  try {
    const response = await postRun(harness.url, {
      task: todoTask,
      variables: { todo: 'Buy milk' },
      startUrl: app.appUrl,
    })
    recordedRunId = runIdOf(response)
    const list = events(await readSse(response))
    expect(list.at(-1)).toMatchObject({ type: 'done', reason: 'model_stop', result: { success: true } })
    recorded = await json<Recording>(await fetch(`${harness.url}/v1/runs/${recordedRunId}/recording`))
  } finally {
    await app.close()
  }
}, 120_000)

afterAll(async () => {
  await harness?.close()
  await fake?.close()
})

test('a run yields its recording: targets, templates, expectations', () => {
  expect(recorded).toMatchObject({ version: 1, task: todoTask, variables: { todo: 'Buy milk' } })
  const steps = recorded.steps.filter((step) => step.skip === undefined)
  expect(steps.map((step) => step.tool)).toEqual(['type', 'type', 'click', 'click', 'done'])
  expect(steps[0]).toMatchObject({
    input: { text: '{{todo}}', submit: true },
    target: { role: 'textbox', name: 'What needs to be done?', tag: 'input', attributes: { id: 'new-todo' } },
    expect: [{ kind: 'appeared', text: '{{todo}}' }],
    goal: 'Add the todo {{todo}}.',
  })
  // The checkbox has no name: its list item tells it from the other todo's.
  expect(steps[2]?.target).toMatchObject({
    role: 'checkbox',
    name: '',
    context: [{ role: 'listitem', label: '{{todo}}' }],
  })
  expect(steps[3]?.target).toMatchObject({ role: 'button', name: 'Clear completed (1)' })
  expect(steps[3]?.expect).toEqual([{ kind: 'gone' }])
  console.log(JSON.stringify(recorded, null, 1))
})

async function replay(body: Record<string, unknown>): Promise<AgentEvent[]> {
  const response = await postRun(harness.url, body)
  expect(response.status).toBe(200)
  return events(await readSse(response))
}

test('1. a replay against a fresh app makes no model call', async () => {
  const app = await serveTodoApp('original')
  try {
    fake.requests.length = 0
    const list = await replay({ replay: recordedRunId, startUrl: app.appUrl })
    expect(fake.requests).toHaveLength(0)
    const done = list.at(-1)
    expect(done).toMatchObject({
      type: 'done',
      reason: 'model_stop',
      result: { success: true, text: 'Added Buy milk and Walk dog; Buy milk was done and cleared.' },
      usage: { totalTokens: 0 },
      replay: { replayed: 5, healed: 0, modelSteps: 0 },
    })
    const calls = list.filter((event) => event.type === 'tool_call_start')
    expect(calls.map((call) => call.type === 'tool_call_start' && call.source)).toEqual(
      Array(5).fill('replay'),
    )
    expect(list.some((event) => event.type === 'usage')).toBe(false)
  } finally {
    await app.close()
  }
})
