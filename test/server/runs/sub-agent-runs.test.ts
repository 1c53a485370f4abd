import { afterAll, afterEach, beforeAll, beforeEach, expect, test } from 'vitest'
import type { StoredRun } from '../../../src/store/run-store.ts'
import {
  agentOutput,
  doneTurn,
  type FakeOpenAI,
  promptText,
  startFakeOpenAI,
} from '../../support/models/fake-openai.ts'
import { events, type Harness, json, postRun, readSse, runIdOf, startHarness } from '../support.ts'

// A run with sub-agents through the server: its stream carries its children's events live,
// and the manager stores each child as a run of its own, linked to the parent.

const parentTask = 'Compare the three shops.'
const shops = ['shop A', 'shop B', 'shop C']

let fake: FakeOpenAI
let harness: Harness

beforeAll(async () => {
  fake = await startFakeOpenAI({
    fallback: (request) => {
      const prompt = promptText(request)
      if (prompt.includes(parentTask)) {
        return prompt.includes('sub-agents finished.')
          ? doneTurn('All three shops answered.')
          : {
              output: agentOutput({
                dispatch_agent: { tasks: shops.map((shop) => ({ task: `Read ${shop}.` })) },
              }),
            }
      }
      const shop = shops.find((name) => prompt.includes(`Read ${name}.`))
      return doneTurn(`${shop} says hello.`, true, { chunkDelayMs: 5 })
    },
  })
})
afterAll(() => fake.close())
beforeEach(async () => {
  harness = await startHarness({ fake })
})
afterEach(() => harness.close())

test('children stream live in the parent, are stored as runs of their own, and GET lists them', async () => {
  const response = await postRun(harness.url, { task: parentTask, maxTurns: 10, subAgents: { max: 3 } })
  expect(response.status).toBe(200)
  const id = runIdOf(response)
  const messages = await readSse(response)
  const list = events(messages)
  // One stream: SSE ids are the parent's seq, without gaps, children's events included.
  const ids = messages.filter((message) => message.data.type !== 'text_delta').map((message) => message.id)
  expect(ids).toEqual(ids.map((_, index) => String(index)))
  const forwarded = list.filter((event) => event.parentRunId === id)
  expect(new Set(forwarded.map((event) => event.childIndex))).toEqual(new Set([0, 1, 2]))
  expect(list.at(-1)).toMatchObject({
    type: 'done',
    runId: id,
    reason: 'model_stop',
    result: { text: 'All three shops answered.' },
  })

  const parent = await json<StoredRun & { children: StoredRun[] }>(
    await fetch(`${harness.url}/v1/runs/${id}`),
  )
  expect(parent).toMatchObject({ id, status: 'completed', steps: 5 })
  expect(parent.parentRunId).toBeUndefined()
  expect(
    parent.children.map((child) => [child.task, child.status, child.parentRunId, child.result?.text]).sort(),
  ).toEqual(shops.map((shop) => [`Read ${shop}.`, 'completed', id, `${shop} says hello.`]))

  // A child's own stream: its events alone, with its own seq from 0.
  for (const child of parent.children) {
    const stored = events(await readSse(await fetch(`${harness.url}/v1/runs/${child.id}/events`)))
    expect(stored.map((event) => event.seq)).toEqual(stored.map((_, index) => index))
    expect(stored.every((event) => event.runId === child.id && event.parentRunId === id)).toBe(true)
    expect(stored[0]).toMatchObject({ type: 'run_started', task: child.task })
    expect(stored.at(-1)).toMatchObject({ type: 'done', reason: 'model_stop' })
    const inParent = list.filter((event) => event.runId === child.id)
    // Streamed model text is live-only: the child's stored stream has every other event.
    expect(stored.map((event) => event.type)).toEqual(
      inParent.filter((event) => event.type !== 'text_delta').map((event) => event.type),
    )
    const own = await json<StoredRun & { children: StoredRun[] }>(
      await fetch(`${harness.url}/v1/runs/${child.id}`),
    )
    expect(own).toMatchObject({ parentRunId: id, children: [] })
  }
})

test('a body asking for too many sub-agents is refused, with the field named', async () => {
  const response = await postRun(harness.url, { task: parentTask, subAgents: { max: 50 } })
  expect(response.status).toBe(400)
  expect(JSON.stringify(await response.json())).toContain('subAgents')
})
