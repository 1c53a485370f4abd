import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { queueTimeoutText } from '../../src/store/interrupted.ts'
import { events, json, postRun, readSse, runIdOf } from '../server/support.ts'
import {
  doneTurn,
  type FakeOpenAI,
  promptText,
  scriptedTurns,
  startFakeOpenAI,
} from '../support/models/fake-openai.ts'
import { createTestDatabase, hasPostgres } from '../support/postgres.ts'
import { until } from '../support/until.ts'
import { type ClusterServer, startClusterServer } from './cluster-support.ts'

// The shared queue pushes back: a bound (SEXTANT_QUEUE_MAX), an order (priority), a limit on waiting (queueTimeoutMs).

let fake: FakeOpenAI
const turns = scriptedTurns(() => doneTurn('Nothing left to do.'))
const { script } = turns

function asked(task: string): boolean {
  return fake.requests.some((request) => promptText(request).includes(task))
}

/** Takes the server's only slot with a run that waits on the model until it is aborted. */
async function holdTheSlot(server: ClusterServer, name: string): Promise<{ release(): Promise<void> }> {
  const task = script(name, { hang: true })
  const response = await postRun(server.url, { task })
  const id = runIdOf(response)
  const stream = readSse(response)
  await until(() => asked(task), { what: 'the holding run to start' })
  return {
    release: async () => {
      expect((await fetch(`${server.url}/v1/runs/${id}`, { method: 'DELETE' })).status).toBe(200)
      await stream
    },
  }
}

async function statusOf(server: ClusterServer, id: string): Promise<string> {
  return (await json<{ status: string }>(await fetch(`${server.url}/v1/runs/${id}`))).status
}

describe.skipIf(!hasPostgres)('a queue that pushes back', () => {
  beforeAll(async () => {
    fake = await startFakeOpenAI({ fallback: turns.fallback })
  })
  afterAll(() => fake.close())

  test('a full queue (SEXTANT_QUEUE_MAX) answers 429 with Retry-After and says why; a freed place takes runs again', async () => {
    const server = await startClusterServer(await createTestDatabase('qmax'), fake, {
      queue: true,
      maxRuns: 1,
      queueMax: 1,
    })
    try {
      const hold = await holdTheSlot(server, 'Hold the slot while the queue fills.')
      const waiting = await postRun(server.url, {
        task: script('Wait in the one place.', doneTurn('Waited.')),
      })
      expect(waiting.status).toBe(200)
      const waitingId = runIdOf(waiting)
      const waitingStream = readSse(waiting)
      await until(async () => (await statusOf(server, waitingId)) === 'queued')

      const refused = await postRun(server.url, { task: 'One too many.' })
      expect(refused.status).toBe(429)
      expect(refused.headers.get('retry-after')).toBe('5')
      expect(await json(refused)).toEqual({
        error: {
          code: 'queue_full',
          message: expect.stringMatching(/The queue is full: 1 runs are waiting.*SEXTANT_QUEUE_MAX/),
        },
      })

      await hold.release()
      expect(events(await waitingStream).at(-1)).toMatchObject({ type: 'done', reason: 'model_stop' })
      const again = await postRun(server.url, { task: script('Room again.', doneTurn('In.')) })
      expect(again.status).toBe(200)
      expect(events(await readSse(again)).at(-1)).toMatchObject({ type: 'done', reason: 'model_stop' })
    } finally {
      await server.close()
    }
  })

  test('queued runs are claimed by priority, first come within one', async () => {
    const server = await startClusterServer(await createTestDatabase('qprio'), fake, {
      queue: true,
      maxRuns: 1,
    })
    try {
      const hold = await holdTheSlot(server, 'Hold the slot while runs queue up.')
      const posted = [
        { task: script('Low priority run.', doneTurn('Low.')), priority: -5 },
        { task: script('First normal run.', doneTurn('Normal 1.')) },
        { task: script('High priority run.', doneTurn('High.')), priority: 10 },
        { task: script('Second normal run.', doneTurn('Normal 2.')), priority: 0 },
      ]
      const streams = []
      for (const body of posted) {
        const response = await postRun(server.url, body)
        expect(response.status).toBe(200)
        const id = runIdOf(response)
        streams.push(readSse(response))
        await until(async () => (await statusOf(server, id)) === 'queued')
      }
      await hold.release()
      for (const stream of streams) expect(events(await stream).at(-1)).toMatchObject({ type: 'done' })
      const order = fake.requests
        .map((request) => posted.findIndex((body) => promptText(request).includes(body.task)))
        .filter((index) => index >= 0)
      expect(order).toEqual([2, 1, 3, 0])
    } finally {
      await server.close()
    }
  })

  test('a queued run past its queueTimeoutMs ends error, saying it waited too long in the queue', async () => {
    const server = await startClusterServer(await createTestDatabase('qtime'), fake, {
      queue: true,
      maxRuns: 1,
    })
    try {
      const hold = await holdTheSlot(server, 'Hold the slot past the timeout.')
      const task = script('Too impatient to wait.', doneTurn('Never runs.'))
      const response = await postRun(server.url, { task, queueTimeoutMs: 1000 })
      expect(response.status).toBe(200)
      // It heard its place, then its end: it never ran.
      const heard = events((await readSse(response)).filter((message) => message.event !== 'queue_position'))
      expect(heard.map((event) => event.type)).toEqual(['done'])
      expect(heard[0]).toMatchObject({
        reason: 'error',
        result: { success: false, text: queueTimeoutText(1000) },
      })
      expect(queueTimeoutText(1000)).toMatch(/waited too long in the queue/)
      expect(await statusOf(server, heard[0]?.runId ?? '')).toBe('failed')
      expect(asked(task)).toBe(false)
      await hold.release()
    } finally {
      await server.close()
    }
  })
})
