import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { takenOverText } from '../../src/server/runs/run-ending.ts'
import { interruptedText } from '../../src/store/interrupted.ts'
import { PostgresRunStore } from '../../src/store/postgres/postgres-store.ts'
import { events, json, postRun, readSse, runIdOf } from '../server/support.ts'
import { actionTurn, type FakeOpenAI, promptText, startFakeOpenAI } from '../support/models/fake-openai.ts'
import { createTestDatabase, hasPostgres } from '../support/postgres.ts'
import { until } from '../support/until.ts'
import { startChildServer } from './cluster-support.ts'

const task = 'Keep clicking on A, however long it takes.'
let fake: FakeOpenAI

function requestsForTask(): number {
  return fake.requests.filter((request) => promptText(request).includes(task)).length
}

describe.skipIf(!hasPostgres)('a server stalled past its lease (SIGSTOP, then SIGCONT)', () => {
  beforeAll(async () => {
    let asked = 0
    fake = await startFakeOpenAI({
      // The second answer comes late, so A is stopped while it waits; every answer asks for one more click,
      // so a server that went on with the run would keep asking.
      fallback: () => actionTurn('click', { ref: 'b1' }, ++asked === 2 ? { delayMs: 6000 } : {}),
    })
  })
  afterAll(() => fake.close())

  test("A stops the run B ended: its client hears it was taken over, no model request follows, B's ending stays", async () => {
    const database = await createTestDatabase('stalled')
    const env = {
      SEXTANT_DB: database,
      SEXTANT_HEARTBEAT_MS: '200',
      SEXTANT_LEASE_MS: '1500',
      SEXTANT_BASE_URL: fake.baseUrl,
      SEXTANT_MODEL: 'fake/agent-model',
      SEXTANT_MAX_TURNS: '50',
      SEXTANT_LOG_LEVEL: 'warn',
    }
    const reader = new PostgresRunStore(database, { maxConnections: 1 })
    const a = await startChildServer(env)
    const b = await startChildServer(env)
    try {
      const response = await postRun(a.url, { task })
      const runId = runIdOf(response)
      const streamOnA = readSse(response)
      await until(() => requestsForTask() >= 2, { what: 'A to ask the model for its second step' })

      a.child.kill('SIGSTOP')
      await until(async () => (await json(await fetch(`${b.url}/v1/runs/${runId}`))).status === 'failed', {
        what: "B to end the stalled server's run",
      })
      const endedByB = await reader.getRun(runId)
      const storedByB = await reader.events(runId)
      const requestsWhenStopped = requestsForTask()

      a.child.kill('SIGCONT')
      const heard = events(await streamOnA)
      expect(heard.at(-1)).toMatchObject({ type: 'error', runId, message: takenOverText, retryable: false })
      expect(heard.filter((event) => event.type === 'done')).toEqual([])

      // A has wound the run down (it left A's live runs: A answers from the store) without asking the model again.
      await until(async () => (await json(await fetch(`${a.url}/v1/runs/${runId}`))).status === 'failed', {
        what: 'A to finish stopping the run',
      })
      expect(requestsForTask()).toBe(requestsWhenStopped)

      // The store keeps B's ending: nothing of A's after it, seq without a gap.
      expect(endedByB).toMatchObject({ status: 'failed', reason: 'error', result: { text: interruptedText } })
      expect(await reader.getRun(runId)).toEqual(endedByB)
      const stored = await reader.events(runId)
      expect(stored).toEqual(storedByB)
      expect(stored.map((event) => event.seq)).toEqual(stored.map((_, index) => index))
      expect(stored.at(-1)).toMatchObject({ type: 'done', reason: 'error' })

      // A said what it was refused, and counts it.
      expect(a.stderr()).toContain('the store refused a write: another server ended or took over the run')
      const metrics = await (await fetch(`${a.url}/metrics`)).text()
      expect(Number(/^sextant_store_writes_refused_total (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThan(0)
    } finally {
      if (a.child.signalCode === null) a.child.kill('SIGCONT')
      await a.close()
      await b.close()
      await reader.close()
    }
  })
})
