import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { interruptedText } from '../../src/store/interrupted.ts'
import { events, json, postRun, readSse, runIdOf } from '../server/support.ts'
import {
  actionTurn,
  doneTurn,
  type FakeOpenAI,
  promptText,
  scriptedTurns,
  startFakeOpenAI,
} from '../support/models/fake-openai.ts'
import { createTestDatabase, hasPostgres } from '../support/postgres.ts'
import { seqProblems } from '../support/run.ts'
import { until } from '../support/until.ts'
import { startChildServer, startClusterServer } from './cluster-support.ts'

let fake: FakeOpenAI
/** Turns per task text, so concurrent runs each follow their own script. */
const turns = scriptedTurns(() => doneTurn('Nothing left to do.'))
const { script } = turns

function requestsFor(task: string): number {
  return fake.requests.filter((request) => promptText(request).includes(task)).length
}

describe.skipIf(!hasPostgres)('the queue (SEXTANT_QUEUE) and a server that dies', () => {
  beforeAll(async () => {
    fake = await startFakeOpenAI({ fallback: turns.fallback })
  })
  afterAll(() => fake.close())

  test('20 runs posted across 2 servers with 2 slots each all complete, each run once; waiting ones hear their place', async () => {
    const database = await createTestDatabase('queue')
    const servers = [
      await startClusterServer(database, fake, { queue: true, maxRuns: 2 }),
      await startClusterServer(database, fake, { queue: true, maxRuns: 2 }),
    ]
    try {
      const tasks = Array.from({ length: 20 }, (_, index) =>
        script(`Queued task number ${index}.`, doneTurn(`Done ${index}.`, true, { delayMs: 100 })),
      )
      const streams = await Promise.all(
        tasks.map(async (task, index) => {
          const response = await postRun(servers[index % 2]!.url, { task })
          expect(response.status).toBe(200)
          return { id: runIdOf(response), messages: await readSse(response) }
        }),
      )
      for (const { messages } of streams) {
        const runEvents = events(messages.filter((message) => message.event !== 'queue_position'))
        expect(runEvents.filter((event) => event.type === 'run_started')).toHaveLength(1)
        expect(runEvents.at(-1)).toMatchObject({ type: 'done', reason: 'model_stop' })
        expect(seqProblems(runEvents)).toEqual([])
      }
      // Four slots for twenty runs: some waited, and were told where they stood (no id: not a run event).
      const positions = streams.flatMap(({ messages }) =>
        messages.filter((message) => message.event === 'queue_position'),
      )
      expect(positions.length).toBeGreaterThan(0)
      expect(positions.every((message) => message.id === undefined)).toBe(true)
      for (const task of tasks) expect(requestsFor(task)).toBe(1)
      // Both servers took runs, and no run started twice.
      const started = servers.map(
        (server) => server.logs.filter((line) => line.msg === 'run starting').length,
      )
      expect(started[0]! + started[1]!).toBe(20)
      expect(started.every((count) => count > 0)).toBe(true)
      const page = await json<{ runs: { status: string }[] }>(
        await fetch(`${servers[0]!.url}/v1/runs?limit=50`),
      )
      expect(page.runs.map((run) => run.status)).toEqual(Array(20).fill('completed'))
      // Each server's /metrics counts its own runs; the queue depth is the shared queue's.
      const finished = await Promise.all(
        servers.map(async (server) => {
          const text = await (await fetch(`${server.url}/metrics`)).text()
          expect(text).toMatch(/^sextant_queue_depth 0$/m)
          return Number(
            /^sextant_runs_finished_total\{status="completed",reason="model_stop"\} (\d+)$/m.exec(text)?.[1],
          )
        }),
      )
      expect(finished).toEqual(started)
    } finally {
      for (const server of servers) await server.close()
    }
  })

  test('kill -9 of A mid-run: B ends its run failed, and claims the run that waited in the queue', async () => {
    const database = await createTestDatabase('crash')
    const env = {
      SEXTANT_DB: database,
      SEXTANT_QUEUE: '1',
      SEXTANT_MAX_RUNS: '1',
      SEXTANT_HEARTBEAT_MS: '200',
      SEXTANT_LEASE_MS: '1500',
      SEXTANT_BASE_URL: fake.baseUrl,
      SEXTANT_MODEL: 'fake/agent-model',
    }
    const hold = script('Hold B busy.', { hang: true })
    const cut = script('Cut off on A.', actionTurn('click', { ref: 'b1' }), { hang: true })
    const waiting = script('Wait in the queue.', doneTurn('Ran after all.'))
    const b = await startChildServer(env)
    let a: Awaited<ReturnType<typeof startChildServer>> | undefined
    try {
      // B's one slot is taken first; then A (also one slot) takes the next run, and the third waits.
      const holding = await postRun(b.url, { task: hold })
      const holdId = runIdOf(holding)
      const holdStream = readSse(holding)
      await until(() => requestsFor(hold) > 0, { what: 'B to run the holding run' })
      a = await startChildServer(env)
      const onA = await postRun(a.url, { task: cut })
      const cutId = runIdOf(onA)
      void readSse(onA).catch(() => {})
      await until(() => requestsFor(cut) >= 2, { what: 'A to run its run to its second step' })
      const queued = await postRun(a.url, { task: waiting })
      const waitingId = runIdOf(queued)
      void readSse(queued).catch(() => {})
      await until(async () => (await json(await fetch(`${b.url}/v1/runs/${waitingId}`))).status === 'queued')

      // Followed on B from the store: once B has seen step 2, A dies mid-run.
      const secondStep = Promise.withResolvers<void>()
      const followedOnB = readSse(await fetch(`${b.url}/v1/runs/${cutId}/events`), (message) => {
        if (message.data.type === 'step_started' && message.data.step === 2) secondStep.resolve()
        return false
      })
      await secondStep.promise
      a.child.kill('SIGKILL')
      const cutEvents = events(await followedOnB)
      expect(cutEvents.at(-1)).toMatchObject({
        type: 'done',
        reason: 'error',
        result: { success: false, text: interruptedText },
      })
      expect(await json(await fetch(`${b.url}/v1/runs/${cutId}`))).toMatchObject({
        status: 'failed',
        reason: 'error',
        steps: 2,
      })

      // B frees its slot; the run A queued and never claimed runs on B.
      expect((await fetch(`${b.url}/v1/runs/${holdId}`, { method: 'DELETE' })).status).toBe(200)
      await holdStream
      const waited = events(await readSse(await fetch(`${b.url}/v1/runs/${waitingId}/events`)))
      expect(waited.at(-1)).toMatchObject({
        type: 'done',
        reason: 'model_stop',
        result: { text: 'Ran after all.' },
      })
      expect(requestsFor(waiting)).toBe(1)
    } finally {
      await a?.close()
      await b.close()
    }
  })

  test('a run with secrets is never queued (secrets are never stored): with no slot free it is answered 429', async () => {
    const database = await createTestDatabase('secretq')
    const server = await startClusterServer(database, fake, { queue: true, maxRuns: 1 })
    try {
      const hold = script('Hold the only slot.', { hang: true })
      const holding = await postRun(server.url, { task: hold })
      const holdId = runIdOf(holding)
      const holdStream = readSse(holding)
      await until(() => requestsFor(hold) > 0, { what: 'the holding run to start' })

      const withSecret = await postRun(server.url, {
        task: 'Log in with <secret>pw</secret>.',
        secrets: { pw: 'queue-canary-5e1' },
      })
      expect(withSecret.status).toBe(429)
      await withSecret.text()
      // Without secrets the same request waits in the queue, as before.
      const plain = await postRun(server.url, { task: script('Plain waiting run.', doneTurn('Ran.')) })
      expect(plain.status).toBe(200)
      const plainStream = readSse(plain)

      expect((await fetch(`${server.url}/v1/runs/${holdId}`, { method: 'DELETE' })).status).toBe(200)
      await holdStream
      expect(events(await plainStream).at(-1)).toMatchObject({ type: 'done', reason: 'model_stop' })
    } finally {
      await server.close()
    }
  })
})
