import { afterAll, afterEach, beforeAll, beforeEach, expect, test } from 'vitest'
import { isLiveOnly } from '../../src/events/events.ts'
import {
  actionTurn,
  doneTurn,
  type FakeOpenAI,
  promptText,
  scriptedTurns,
  startFakeOpenAI,
} from '../support/models/fake-openai.ts'
import { seqProblems } from '../support/run.ts'
import { until } from '../support/until.ts'
import { events, type Harness, json, postRun, readSse, runIdOf, startHarness } from './support.ts'

// Runs without a browser (only done, wait and ask_user): the HTTP machinery on its own.
// Runs in Chromium are in browser-runs.test.ts.

let fake: FakeOpenAI
let harness: Harness
/** Turns per task text, so concurrent runs each follow their own script. */
const turns = scriptedTurns(() => doneTurn('Nothing left to do.'))
const { script } = turns

beforeAll(async () => {
  fake = await startFakeOpenAI({ fallback: turns.fallback })
})
afterAll(() => fake.close())
beforeEach(async () => {
  turns.clear()
  harness = await startHarness({ fake, config: { maxRuns: 2 } })
})
afterEach(() => harness.close())

test('a run streams every event to done and is stored', async () => {
  // Arguments in many small pieces, so each reflection field arrives over several chunks.
  const task = script('Say hello and finish.', {
    ...doneTurn('Hello!'),
    text: 'Thinking about it.',
    pieces: 24,
  })
  const response = await postRun(harness.url, { task, maxTurns: 5 })
  expect(response.status).toBe(200)
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/)
  const id = runIdOf(response)
  expect(response.headers.get('location')).toBe(`/v1/runs/${id}`)

  const messages = await readSse(response)
  const list = events(messages)
  expect(list[0]).toMatchObject({
    type: 'run_started',
    runId: id,
    seq: 0,
    task,
    model: 'fake/agent-model',
    maxTurns: 5,
  })
  expect(list.at(-1)).toMatchObject({
    type: 'done',
    reason: 'model_stop',
    result: { success: true, text: 'Hello!' },
    usage: { inputTokens: 100, outputTokens: 20, totalTokens: 120 },
  })
  // Frames: id is the seq of a stored event, none on live-only text; seqs count up from 0 without gaps.
  for (const message of messages) {
    expect(message.id).toBe(message.data.type === 'text_delta' ? undefined : String(message.data.seq))
    expect(message.event).toBe(message.data.type)
  }
  expect(seqProblems(list)).toEqual([])
  // Each reflection field and the free text reach the client as deltas before the reflection is complete.
  const reflectionAt = list.findIndex((event) => event.type === 'reflection')
  const reflection = list[reflectionAt]
  if (reflection?.type !== 'reflection') throw new Error('No reflection event was streamed.')
  const streamed = (field: string) =>
    list
      .slice(0, reflectionAt)
      .flatMap((event) => (event.type === 'text_delta' && event.field === field ? [event.text] : []))
  for (const field of ['evaluation_previous_goal', 'memory', 'next_goal'] as const) {
    expect(streamed(field).join(''), field).toBe(reflection[field])
    expect(streamed(field).length, field).toBeGreaterThan(1)
  }
  expect(streamed('text').join('')).toBe('Thinking about it.')
  // Stored once: the reflection carries the free text whole.
  expect(reflection.text).toBe('Thinking about it.')

  const run = await json(await fetch(`${harness.url}/v1/runs/${id}`))
  expect(run).toMatchObject({
    id,
    status: 'completed',
    task,
    reason: 'model_stop',
    result: { success: true, text: 'Hello!' },
    usage: { totalTokens: 120 },
    steps: 1,
    createdAt: expect.any(String),
    finishedAt: expect.any(String),
  })
  // The stored stream is the streamed one without its live-only text (docs/events.md).
  await until(() => harness.server.manager.liveCount === 0)
  const stored = list.filter((event) => !isLiveOnly(event))
  expect(stored.length).toBeLessThan(list.length)
  const replay = await readSse(await fetch(`${harness.url}/v1/runs/${id}/events`))
  expect(events(replay)).toEqual(stored)
  expect(await harness.store.events(id)).toEqual(stored)
})

test('DELETE aborts a live run with user_abort and answers its final state; again, unchanged', async () => {
  const task = script('Think forever.', { hang: true })
  const response = await postRun(harness.url, { task })
  const id = runIdOf(response)
  const streamed = readSse(response)
  await until(() => fake.requests.some((request) => promptText(request).includes(task)))

  const deleted = await fetch(`${harness.url}/v1/runs/${id}`, { method: 'DELETE' })
  expect(deleted.status).toBe(200)
  const state = await json(deleted)
  expect(state).toMatchObject({ id, status: 'stopped', reason: 'user_abort', result: { success: false } })
  expect(events(await streamed).at(-1)).toMatchObject({ type: 'done', reason: 'user_abort' })

  const again = await fetch(`${harness.url}/v1/runs/${id}`, { method: 'DELETE' })
  expect(await json(again)).toEqual(await json(await fetch(`${harness.url}/v1/runs/${id}`)))
  expect(await harness.store.getRun(id)).toMatchObject({ status: 'stopped', reason: 'user_abort' })
})

test('a client that disconnects does not abort its run; Last-Event-ID resumes with exactly the missed events', async () => {
  const task = script(
    'Wait, then finish.',
    actionTurn('wait', { seconds: 1 }, { text: 'Waiting a moment first.', pieces: 8, chunkDelayMs: 20 }),
    { ...doneTurn('Waited.'), pieces: 8, chunkDelayMs: 20 },
  )
  const response = await postRun(harness.url, { task })
  const id = runIdOf(response)
  const first = await readSse(response, (message) => message.data.type === 'step_started')
  const lastSeen = first.at(-1)!.data.seq
  expect(harness.server.manager.get(id)).toBeDefined()

  const resumed = await fetch(`${harness.url}/v1/runs/${id}/events`, {
    headers: { 'last-event-id': String(lastSeen) },
  })
  expect(resumed.status).toBe(200)
  const rest = events(await readSse(resumed))
  expect(rest[0]!.seq).toBe(lastSeen + 1)
  expect(rest.at(-1)).toMatchObject({ type: 'done', reason: 'model_stop', result: { text: 'Waited.' } })

  const all = [...events(first), ...rest]
  expect(seqProblems(all)).toEqual([])
  await until(() => harness.server.manager.liveCount === 0)
  expect(await harness.store.events(id)).toEqual(all.filter((event) => !isLiveOnly(event)))
  // After the run, ?after= does the same from the store (without the live-only text).
  const fromStore = events(
    await readSse(await fetch(`${harness.url}/v1/runs/${id}/events?after=${lastSeen}`)),
  )
  expect(fromStore).toEqual(rest.filter((event) => !isLiveOnly(event)))
})

test('a question reaches the client and its answer reaches the run', async () => {
  const task = script(
    'Ask for the code, then finish.',
    actionTurn('ask_user', { question: 'What is the code?' }),
    doneTurn('Got the code.'),
  )
  const response = await postRun(harness.url, { task })
  const id = runIdOf(response)
  let replies: Promise<number[]> | undefined
  const messages = await readSse(response, (message) => {
    if (message.data.type === 'question') replies = answer(id, message.data.questionId)
    return false
  })
  // The answer is delivered once; a second answer to the same question is refused.
  expect(await replies).toEqual([200, 409])
  const list = events(messages)
  const question = list.find((event) => event.type === 'question')
  expect(question).toMatchObject({ question: 'What is the code?' })
  expect(list.find((event) => event.type === 'answer')).toMatchObject({ answer: '4711' })
  expect(list.find((event) => event.type === 'tool_call_result')).toMatchObject({
    ok: true,
    result: expect.stringContaining('4711'),
  })
  expect(list.at(-1)).toMatchObject({ type: 'done', reason: 'model_stop' })
  const secondPrompt = fake.requests.filter((request) => promptText(request).includes(task))[1]
  expect(promptText(secondPrompt!)).toContain('4711')
})

async function answer(runId: string, questionId: string): Promise<number[]> {
  const statuses: number[] = []
  for (const text of ['4711', 'again']) {
    const reply = await fetch(`${harness.url}/v1/runs/${runId}/answers/${questionId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ answer: text }),
    })
    statuses.push(reply.status)
  }
  return statuses
}

test('runs up to SEXTANT_MAX_RUNS go live at once; one more gets 429 with Retry-After', async () => {
  const tasks = [script('Hold slot one.', { hang: true }), script('Hold slot two.', { hang: true })]
  const responses = await Promise.all(tasks.map((task) => postRun(harness.url, { task })))
  expect(responses.map((response) => response.status)).toEqual([200, 200])
  const ids = responses.map(runIdOf)

  const refused = await postRun(harness.url, { task: 'One too many.' })
  expect(refused.status).toBe(429)
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
  const { error } = await json<{ error: { code: string; message: string } }>(refused)
  expect(error).toMatchObject({ code: 'too_many_runs' })
  expect(error.message).toMatch(/2 runs are live/)
  expect((await json(await fetch(`${harness.url}/healthz`))).liveRuns).toBe(2)

  // The listing shows the live runs, newest first.
  const page = await json<{ runs: { id: string; status: string }[] }>(await fetch(`${harness.url}/v1/runs`))
  expect(page.runs.map((run) => run.id)).toEqual([...ids].reverse())
  expect(page.runs.every((run) => run.status === 'running')).toBe(true)

  await fetch(`${harness.url}/v1/runs/${ids[0]}`, { method: 'DELETE' })
  const admitted = await postRun(harness.url, { task: script('Now there is room.', doneTurn('Done.')) })
  expect(admitted.status).toBe(200)
  expect(events(await readSse(admitted)).at(-1)).toMatchObject({ type: 'done', reason: 'model_stop' })
  await fetch(`${harness.url}/v1/runs/${ids[1]}`, { method: 'DELETE' })
  await Promise.all(responses.map((response) => readSse(response)))
})

test('GET /v1/runs pages through runs newest first', async () => {
  const ids: string[] = []
  for (let index = 0; index < 5; index++) {
    const response = await postRun(harness.url, { task: `List me ${index}.` })
    ids.push(runIdOf(response))
    await readSse(response)
  }
  const seen: string[] = []
  let cursor: string | undefined
  do {
    const page: { runs: { id: string; status: string }[]; nextCursor?: string } = await json(
      await fetch(`${harness.url}/v1/runs?limit=2${cursor ? `&cursor=${cursor}` : ''}`),
    )
    expect(page.runs.length).toBeLessThanOrEqual(2)
    seen.push(...page.runs.map((run) => run.id))
    cursor = page.nextCursor
  } while (cursor)
  expect(seen).toEqual([...ids].reverse())
})

test('model errors become error events and a failed run, and the server logs each request and transition', async () => {
  const task = script('Meet a broken model.', { status: 400, text: 'This model does not exist.' })
  const response = await postRun(harness.url, { task })
  const id = runIdOf(response)
  const list = events(await readSse(response))
  expect(list.some((event) => event.type === 'error')).toBe(true)
  expect(list.at(-1)).toMatchObject({ type: 'done', reason: 'error' })
  expect(await json(await fetch(`${harness.url}/v1/runs/${id}`))).toMatchObject({
    status: 'failed',
    reason: 'error',
  })

  const requestLine = harness.logs.find((line) => line.msg === 'request' && line.method === 'POST')
  expect(requestLine).toMatchObject({ path: '/v1/runs', status: 200, runId: id })
  expect(harness.logs.some((line) => line.runId === id && line.msg === 'run done')).toBe(true)
})
