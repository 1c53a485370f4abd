import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import type { AgentEvent } from '../../src/events/events.ts'
import { EventWriter } from '../../src/store/event-writer.ts'
import { MemoryRunStore } from '../../src/store/memory-store.ts'
import type { RunOwner } from '../../src/store/owner.ts'
import { PostgresRunStore } from '../../src/store/postgres/postgres-store.ts'
import type { RunOutcome, RunStore } from '../../src/store/run-store.ts'
import { SqliteRunStore } from '../../src/store/sqlite-store.ts'
import { RunFencedError } from '../../src/store/store-errors.ts'
import { createTestDatabase, hasPostgres } from '../support/postgres.ts'

const tempDir = mkdtempSync(join(tmpdir(), 'sextant-fencing-'))
afterAll(() => rmSync(tempDir, { recursive: true, force: true }))

const serverA: RunOwner = { pid: 101, host: 'server-a', id: 'a' }
const serverB: RunOwner = { pid: 202, host: 'server-b', id: 'b' }
const createdAt = '2025-01-01T00:00:00.000Z'

const implementations: [string, () => RunStore | Promise<RunStore>][] = [
  ['MemoryRunStore', () => new MemoryRunStore()],
  ['SqliteRunStore', () => new SqliteRunStore(join(tempDir, `${Math.random().toString(36).slice(2)}.db`))],
  ...(hasPostgres
    ? [
        [
          'PostgresRunStore',
          async () => {
            const store = new PostgresRunStore(await createTestDatabase('fencing'), { maxConnections: 2 })
            await store.ready()
            return store
          },
        ] as [string, () => Promise<RunStore>],
      ]
    : []),
]

function step(runId: string, seq: number, step = seq): AgentEvent {
  return { type: 'step_started', runId, seq, at: createdAt, step, maxTurns: 9 }
}

function outcome(finishedAt: string): RunOutcome {
  return {
    reason: 'model_stop',
    result: { success: true, text: 'Done by A.' },
    usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
    steps: 1,
    finishedAt,
  }
}

async function refusal(write: Promise<void>): Promise<RunFencedError> {
  const error = await write.then(
    () => undefined,
    (thrown: unknown) => thrown,
  )
  expect(error).toBeInstanceOf(RunFencedError)
  return error as RunFencedError
}

/** A's run, ended by another server's sweep (A's lease lapsed) after A wrote seq 0 and 1. */
async function endedUnderA(store: RunStore, runId: string): Promise<void> {
  await store.createRun({ id: runId, task: 't', model: 'm', createdAt, owner: serverA })
  await store.appendEvents([step(runId, 0), step(runId, 1)], serverA)
  const swept = await store.markInterruptedRuns({
    at: new Date('2025-01-01T00:01:00.000Z'),
    isOwnerGone: (owner) => owner.pid === serverA.pid,
  })
  expect(swept).toEqual([runId])
}

describe.each(implementations)('%s: writes fenced by ownership', (_name, create) => {
  test('a write by a server that does not own the run is refused with RunFencedError, and changes nothing', async () => {
    const store = await create()
    try {
      await store.createRun({ id: 'mine', task: 't', model: 'm', createdAt, owner: serverA })
      await store.createRun({ id: 'theirs', task: 't', model: 'm', createdAt, owner: serverB })
      // One batch of both: A's own events are written, B's run is named as refused.
      const error = await refusal(store.appendEvents([step('mine', 0), step('theirs', 0)], serverA))
      expect(error.runIds).toEqual(['theirs'])
      expect((await store.events('mine')).map((event) => event.seq)).toEqual([0])
      expect(await store.events('theirs')).toEqual([])
      expect(
        (await refusal(store.finishRun('theirs', outcome('2025-01-01T00:00:05.000Z'), serverA))).runIds,
      ).toEqual(['theirs'])
      expect((await store.getRun('theirs'))?.status).toBe('running')
      // A write that does not say who writes is not fenced (the sweeps' own, which hold the run).
      await store.appendEvents([step('theirs', 0)])
      expect(await store.events('theirs')).toHaveLength(1)
    } finally {
      await store.close()
    }
  })

  test("a run another server ended refuses its old owner's events and end; the ending stays", async () => {
    const store = await create()
    try {
      await endedUnderA(store, 'lapsed')
      const ended = await store.getRun('lapsed')
      const stored = await store.events('lapsed')
      expect(stored.map((event) => event.seq)).toEqual([0, 1, 2])
      // A wakes up: its next event (the seq of the sweep's done) and its own done are refused.
      const done: AgentEvent = {
        type: 'done',
        runId: 'lapsed',
        seq: 3,
        at: '2025-01-01T00:02:00.000Z',
        reason: 'model_stop',
        result: { success: true, text: 'Done by A.' },
        usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
        steps: 1,
        durationMs: 1,
      }
      expect((await refusal(store.appendEvents([step('lapsed', 2, 9), done], serverA))).runIds).toEqual([
        'lapsed',
      ])
      await refusal(store.finishRun('lapsed', outcome('2025-01-01T00:02:00.000Z'), serverA))
      expect(await store.getRun('lapsed')).toEqual(ended)
      expect(await store.events('lapsed')).toEqual(stored)
      // The owner's heartbeat no longer renews it: that is how A learns, even without writing.
      expect(await store.heartbeat(serverA, new Date())).toEqual([])
    } finally {
      await store.close()
    }
  })

  test('a retried write the store took already is not a refusal, even once it ended the run', async () => {
    const store = await create()
    try {
      await store.createRun({ id: 'retried', task: 't', model: 'm', createdAt, owner: serverA })
      const done: AgentEvent = {
        type: 'done',
        runId: 'retried',
        seq: 1,
        at: '2025-01-01T00:00:05.000Z',
        reason: 'model_stop',
        result: { success: true, text: 'Done by A.' },
        usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
        steps: 1,
        durationMs: 5000,
      }
      await store.appendEvents([step('retried', 0), done], serverA)
      await store.finishRun('retried', outcome(done.at), serverA)
      // Its answer was lost: the same batch and the same end again.
      await store.appendEvents([step('retried', 0), done], serverA)
      await store.finishRun('retried', outcome(done.at), serverA)
      expect((await store.getRun('retried'))?.status).toBe('completed')
      expect(await store.heartbeat(serverA, new Date())).toEqual([])
    } finally {
      await store.close()
    }
  })

  test('the event writer hands a refusal to its owner once, and does not retry it', async () => {
    const store = await create()
    try {
      await endedUnderA(store, 'lost')
      const refused: string[][] = []
      let retries = 0
      const writer = new EventWriter(store, () => {}, {
        owner: serverA,
        retryMs: 1,
        onRetry: () => retries++,
        onFenced: (error) => refused.push([...error.runIds]),
      })
      writer.push(step('lost', 3, 2))
      await writer.flush()
      expect(refused).toEqual([['lost']])
      expect(retries).toBe(0)
      expect(writer.buffered).toBe(0)
      await writer.close()
    } finally {
      await store.close()
    }
  })
})

describe.skipIf(!hasPostgres)('PostgresRunStore: replies fenced by the run', () => {
  test('a reply to a run another server ended is refused with RunFencedError; to a running run it is recorded', async () => {
    const store = new PostgresRunStore(await createTestDatabase('fencing'), { maxConnections: 2 })
    try {
      await store.createRun({ id: 'live', task: 't', model: 'm', createdAt, owner: serverB })
      await endedUnderA(store, 'ended')
      const reply = { kind: 'answer', id: 'q1', answer: 'yes' } as const
      expect(await store.recordReply({ ...reply, runId: 'live' })).toBe(true)
      expect((await refusal(store.recordReply({ ...reply, runId: 'ended' }).then(() => {}))).runIds).toEqual([
        'ended',
      ])
    } finally {
      await store.close()
    }
  })
})
