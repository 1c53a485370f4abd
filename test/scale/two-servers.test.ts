import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { type AgentEvent, isLiveOnly } from '../../src/events/events.ts'
import { events, json, postRun, readSse, runIdOf, type SseMessage } from '../server/support.ts'
import {
  actionTurn,
  doneTurn,
  type FakeOpenAI,
  promptText,
  scriptedTurns,
  startFakeOpenAI,
} from '../support/models/fake-openai.ts'
import { createTestDatabase, hasPostgres } from '../support/postgres.ts'
import { until } from '../support/until.ts'
import { type ClusterServer, startClusterServer } from './cluster-support.ts'

// Two Sextant servers in this process, one PostgreSQL database: a run on A is
// followed, answered and aborted through B.

let fake: FakeOpenAI
/** Turns per task text, so concurrent runs each follow their own script. */
const turns = scriptedTurns(() => doneTurn('Nothing left to do.'))
const { script } = turns
let a: ClusterServer
let b: ClusterServer

function reply(url: string, path: string, body: unknown): Promise<Response> {
  return fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
}

function followOn(server: ClusterServer, id: string, headers: Record<string, string> = {}) {
  return fetch(`${server.url}/v1/runs/${id}/events`, { headers })
}

/** The seqs of events, in order. */
function seqsOf(list: AgentEvent[]): number[] {
  return list.map((event) => event.seq)
}

describe.skipIf(!hasPostgres)('two servers, one Postgres', () => {
  beforeAll(async () => {
    fake = await startFakeOpenAI({ fallback: turns.fallback })
  })
  afterAll(() => fake.close())
  beforeEach(async () => {
    turns.clear()
    const database = await createTestDatabase('two')
    a = await startClusterServer(database, fake)
    b = await startClusterServer(database, fake)
  })
  afterEach(async () => {
    await a.close()
    await b.close()
  })

  test('a run posted on A is followed on B, its confirmation approved on B once, and resumed on B after any event', async () => {
    const task = script(
      'Run a script after asking.',
      actionTurn('execute_javascript', { script: 'return 6 * 7' }),
      doneTurn('The script said 42.'),
    )
    const posted = await postRun(a.url, { task })
    expect(posted.status).toBe(200)
    const id = runIdOf(posted)
    const onA = readSse(posted)

    const replies: Promise<Response>[] = []
    const onB = await readSse(await followOn(b, id), (message: SseMessage) => {
      const event = message.data
      if (event.type === 'confirmation_required') {
        // The same approval sent to both servers at once: recorded once, the other refused.
        const path = `/v1/runs/${id}/confirmations/${event.callId}`
        replies.push(reply(b.url, path, { approve: true }), reply(a.url, path, { approve: true }))
      }
      return false
    })
    const statuses = (await Promise.all(replies)).map((response) => response.status)
    expect(statuses.sort()).toEqual([200, 409])

    // Followed from the store: the same stream without the model's live-only text.
    const streamed = events(await onA).filter((event) => !isLiveOnly(event))
    const followed = events(onB)
    expect(followed).toEqual(streamed)
    expect(seqsOf(followed)).toEqual(followed.map((_, index) => index))
    expect(followed.filter((event) => event.type === 'confirmation_resolved')).toMatchObject([
      { approved: true, by: 'user' },
    ])
    expect(followed.at(-1)).toMatchObject({ type: 'done', reason: 'model_stop' })

    // Last-Event-ID on B (the run ran on A) resumes after exactly that event.
    const resumed = events(await readSse(await followOn(b, id, { 'Last-Event-ID': '3' })))
    expect(resumed).toEqual(streamed.slice(4))
    expect(await json(await fetch(`${b.url}/v1/runs/${id}`))).toMatchObject({ status: 'completed' })
  })

  test("a sub-agent's confirmation is answered on B under the sub-agent's own run", async () => {
    const child = script(
      'Run the check script.',
      actionTurn('execute_javascript', { script: 'return 6 * 7' }),
      doneTurn('The check said 42.'),
    )
    const parent = script(
      'Dispatch one check.',
      actionTurn('dispatch_agent', { tasks: [{ task: child }] }),
      doneTurn('The check ran.'),
    )
    const posted = await postRun(a.url, { task: parent, subAgents: { max: 1 } })
    const id = runIdOf(posted)
    const replies: Promise<Response>[] = []
    const streamed = events(
      await readSse(posted, (message) => {
        const event = message.data
        if (event.type === 'confirmation_required' && event.parentRunId === id) {
          // B knows the sub-agent only from the store, which may lag A's live stream:
          // it answers once it has read the request there.
          replies.push(
            (async () => {
              const onB = await until(async () => {
                const response = await followOn(b, event.runId)
                if (response.ok) return response
                await response.body?.cancel()
                return undefined
              })
              await readSse(onB, (seen) => seen.data.type === 'confirmation_required')
              return reply(b.url, `/v1/runs/${event.runId}/confirmations/${event.callId}`, { approve: true })
            })(),
          )
        }
        return false
      }),
    )
    expect((await Promise.all(replies)).map((response) => response.status)).toEqual([200])
    expect(streamed.find((event) => event.type === 'confirmation_resolved')).toMatchObject({
      parentRunId: id,
      approved: true,
      by: 'user',
    })
    expect(streamed.at(-1)).toMatchObject({ type: 'done', runId: id, reason: 'model_stop' })
  })

  test('a question on A is answered on B', async () => {
    const task = script(
      'Ask for the code.',
      actionTurn('ask_user', { question: 'What is the code?' }),
      doneTurn('Got the code.'),
    )
    const posted = await postRun(a.url, { task })
    const id = runIdOf(posted)
    const answers: Promise<Response>[] = []
    const followed = events(
      await readSse(await followOn(b, id), (message) => {
        if (message.data.type === 'question') {
          answers.push(reply(b.url, `/v1/runs/${id}/answers/${message.data.questionId}`, { answer: '4711' }))
        }
        return false
      }),
    )
    expect((await Promise.all(answers)).map((answer) => answer.status)).toEqual([200])
    expect(followed.find((event) => event.type === 'answer')).toMatchObject({ answer: '4711' })
    expect(followed.at(-1)).toMatchObject({ type: 'done', reason: 'model_stop' })
    const secondPrompt = fake.requests.filter((request) => promptText(request).includes(task))[1]
    expect(promptText(secondPrompt!)).toContain('4711')
  })

  test('an answer of 20,000 characters given on B reaches the run on A whole', async () => {
    const task = script(
      'Ask for the long text.',
      actionTurn('ask_user', { question: 'Paste the whole contract.' }),
      doneTurn('Read the contract.'),
    )
    // Non-ASCII on purpose: 20,000 characters are well over PostgreSQL's 8,000-byte NOTIFY payload.
    const contract = 'Clause ä. '.repeat(2_000)
    const posted = await postRun(a.url, { task })
    const id = runIdOf(posted)
    const answers: Promise<Response>[] = []
    const followed = events(
      await readSse(await followOn(b, id), (message) => {
        if (message.data.type === 'question') {
          answers.push(
            reply(b.url, `/v1/runs/${id}/answers/${message.data.questionId}`, { answer: contract }),
          )
        }
        return false
      }),
    )
    expect((await Promise.all(answers)).map((answer) => answer.status)).toEqual([200])
    expect(followed.find((event) => event.type === 'answer')).toMatchObject({ answer: contract })
    expect(followed.at(-1)).toMatchObject({ type: 'done', reason: 'model_stop' })
    const secondPrompt = fake.requests.filter((request) => promptText(request).includes(task))[1]
    expect(promptText(secondPrompt!)).toContain(contract)
  })

  test('DELETE on B aborts the run on A', async () => {
    const task = script('Think forever.', { hang: true })
    const posted = await postRun(a.url, { task })
    const id = runIdOf(posted)
    const onA = readSse(posted)
    await until(() => fake.requests.some((request) => promptText(request).includes(task)))

    const deleted = await fetch(`${b.url}/v1/runs/${id}`, { method: 'DELETE' })
    expect(deleted.status).toBe(200)
    expect(await json(deleted)).toMatchObject({ id, status: 'stopped', reason: 'user_abort' })
    expect(events(await onA).at(-1)).toMatchObject({ type: 'done', reason: 'user_abort' })
  })
})
