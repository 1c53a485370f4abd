import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import postgres from 'postgres'
import { afterAll, describe, expect, test } from 'vitest'
import type { AgentEvent } from '../../src/events/events.ts'
import { InvalidCursorError } from '../../src/store/cursor.ts'
import { EventWriter } from '../../src/store/event-writer.ts'
import { MemoryRunStore } from '../../src/store/memory-store.ts'
import {
  isOtherProcessAlive,
  isOwnerGone,
  isSameOwner,
  markInterruptedRuns,
  openRunStore,
  ownerLeaseMs,
  thisProcess,
} from '../../src/store/open-store.ts'
import { migrations } from '../../src/store/postgres/postgres-migrations.ts'
import { PostgresRunStore } from '../../src/store/postgres/postgres-store.ts'
import { RunRecorder } from '../../src/store/run-recorder.ts'
import type { NewRun, RunStore } from '../../src/store/run-store.ts'
import { SqliteRunStore } from '../../src/store/sqlite-store.ts'
import { createTestDatabase, hasPostgres } from '../support/postgres.ts'
import { until } from '../support/until.ts'

const tempDir = mkdtempSync(join(tmpdir(), 'sextant-store-'))
afterAll(() => rmSync(tempDir, { recursive: true, force: true }))

/** Where this process's pids are checked (host and pid namespace). */
const here = thisProcess().host
/** The owner id the test runs are recorded under: not this process's, as if another process had written them. */
const recordedId = 'recorded-owner'

function newRun(
  id: string,
  createdAt = '2025-01-01T00:00:00.000Z',
  ownerPid = process.pid,
  host = here,
): NewRun {
  return {
    id,
    task: `task of ${id}`,
    model: 'test/model',
    startUrl: 'https://example.com/',
    createdAt,
    owner: { pid: ownerPid, host, id: recordedId },
  }
}

function events(runId: string, count: number): AgentEvent[] {
  const list: AgentEvent[] = [
    {
      type: 'run_started',
      runId,
      seq: 0,
      at: '2025-01-01T00:00:00.000Z',
      task: 't',
      model: 'm',
      maxTurns: 5,
    },
  ]
  for (let seq = 1; seq < count; seq++) {
    list.push(
      seq % 2 === 1
        ? {
            type: 'step_started',
            runId,
            seq,
            at: '2025-01-01T00:00:01.000Z',
            step: (seq + 1) / 2,
            maxTurns: 5,
          }
        : {
            type: 'warning',
            runId,
            seq,
            at: '2025-01-01T00:00:01.000Z',
            code: 'event_truncated',
            message: `t${seq}`,
          },
    )
  }
  return list
}

/** Each Postgres case gets its own empty database in the throwaway cluster. */
async function postgresStore(): Promise<RunStore> {
  const store = new PostgresRunStore(await createTestDatabase('store'), { maxConnections: 2 })
  await store.ready()
  return store
}

const implementations: [string, () => RunStore | Promise<RunStore>][] = [
  ['MemoryRunStore', () => new MemoryRunStore()],
  ['SqliteRunStore (:memory:)', () => new SqliteRunStore(':memory:')],
  [
    'SqliteRunStore (file)',
    () => new SqliteRunStore(join(tempDir, `${Math.random().toString(36).slice(2)}.db`)),
  ],
  ...(hasPostgres ? [['PostgresRunStore', postgresStore] as [string, () => Promise<RunStore>]] : []),
]

describe.each(implementations)('%s', async (_name, create) => {
  test('a new run is running, with no usage yet', async () => {
    const store = await create()
    await store.createRun(newRun('r1'))
    expect(await store.getRun('r1')).toEqual({
      id: 'r1',
      status: 'running',
      task: 'task of r1',
      model: 'test/model',
      startUrl: 'https://example.com/',
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      steps: 0,
      createdAt: '2025-01-01T00:00:00.000Z',
    })
    expect(await store.getRun('unknown')).toBeUndefined()
    await store.close()
  })

  test("a sub-agent's run records its parent, and the parent lists its children oldest first", async () => {
    const store = await create()
    await store.createRun(newRun('parent'))
    await store.createRun({ ...newRun('second', '2025-01-01T00:00:02.000Z'), parentRunId: 'parent' })
    await store.createRun({ ...newRun('first', '2025-01-01T00:00:01.000Z'), parentRunId: 'parent' })
    expect((await store.getRun('first'))?.parentRunId).toBe('parent')
    expect((await store.getRun('parent'))?.parentRunId).toBeUndefined()
    expect((await store.childRuns('parent')).map((run) => run.id)).toEqual(['first', 'second'])
    expect(await store.childRuns('first')).toEqual([])
    await store.close()
  })

  test('events come back in seq order, all or after a seq; duplicates and unknown runs are skipped', async () => {
    const store = await create()
    await store.createRun(newRun('r1'))
    const list = events('r1', 6)
    await store.appendEvents(list.slice(3))
    await store.appendEvents([...list.slice(0, 3), list[4]!, ...events('nobody', 2)])
    expect(await store.events('r1')).toEqual(list)
    expect((await store.events('r1', 3)).map((event) => event.seq)).toEqual([4, 5])
    expect(await store.events('r1', 5)).toEqual([])
    expect(await store.events('nobody')).toEqual([])
    await store.close()
  })

  test.each([
    ['model_stop', 'completed'],
    ['user_abort', 'stopped'],
    ['max_turns', 'failed'],
    ['error', 'failed'],
  ] as const)('finishing with %s makes the run %s', async (reason, status) => {
    const store = await create()
    await store.createRun(newRun('r1'))
    const outcome = {
      reason,
      result: { success: reason === 'model_stop', text: 'the end' },
      usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
      steps: 3,
      finishedAt: '2025-01-01T00:01:00.000Z',
    }
    await store.finishRun('r1', outcome)
    expect(await store.getRun('r1')).toMatchObject({ status, ...outcome })
    await store.close()
  })

  test('a run keeps its cost and cached tokens once ended: a number, or null when unknown', async () => {
    const store = await create()
    await store.createRun(newRun('priced'))
    await store.createRun(newRun('unpriced'))
    expect(await store.getRun('priced')).not.toHaveProperty('costUsd')
    const outcome = {
      reason: 'model_stop',
      result: { success: true, text: '' },
      usage: { inputTokens: 10, outputTokens: 2, totalTokens: 12, cachedInputTokens: 8 },
      steps: 1,
      finishedAt: '2025-01-01T00:01:00.000Z',
    } as const
    await store.finishRun('priced', { ...outcome, costUsd: 0.0125 })
    await store.finishRun('unpriced', { ...outcome, costUsd: null })
    expect(await store.getRun('priced')).toMatchObject({ costUsd: 0.0125, usage: { cachedInputTokens: 8 } })
    expect((await store.getRun('unpriced'))?.costUsd).toBeNull()
    expect((await store.listRuns()).runs.map((run) => run.costUsd).sort()).toEqual([0.0125, null])
    await store.close()
  })

  test('finished runs older than the cutoff are deleted with their events; running and newer runs stay', async () => {
    const store = await create()
    const ended = (finishedAt: string) => ({
      reason: 'model_stop' as const,
      result: { success: true, text: '' },
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      costUsd: null,
      steps: 0,
      finishedAt,
    })
    for (const id of ['old', 'new', 'running']) {
      await store.createRun(newRun(id))
      await store.appendEvents(events(id, 2))
    }
    await store.finishRun('old', ended('2025-01-01T00:01:00.000Z'))
    await store.finishRun('new', ended('2025-01-03T00:00:00.000Z'))
    expect(await store.deleteFinishedRuns({ finishedBefore: '2025-01-02T00:00:00.000Z' })).toEqual(['old'])
    expect(await store.getRun('old')).toBeUndefined()
    expect(await store.events('old')).toEqual([])
    expect((await store.listRuns()).runs.map((run) => run.id).sort()).toEqual(['new', 'running'])
    expect(await store.events('running')).toHaveLength(2)
    expect(await store.deleteFinishedRuns({ finishedBefore: '2025-01-02T00:00:00.000Z' })).toEqual([])
    await store.close()
  })

  test("a recorder stores a run's stream in order: the run, its events, a sub-agent's own run, the end", async () => {
    const store = await create()
    const failures: unknown[] = []
    const recorder = new RunRecorder(store, {
      owner: { pid: process.pid, host: here, id: recordedId },
      onError: (error) => failures.push(error),
    })
    const at = '2025-01-01T00:00:00.000Z'
    const usage = { inputTokens: 2, outputTokens: 1, totalTokens: 3 }
    const result = { success: true, text: 'ok' }
    const child = { parentRunId: 'parent', childIndex: 0, depth: 1 }
    const stream: AgentEvent[] = [
      { type: 'run_started', runId: 'parent', seq: 0, at, task: 'the task', model: 'm', maxTurns: 5 },
      { type: 'run_started', runId: 'child', seq: 1, at, task: 'a part', model: 'm', maxTurns: 5, ...child },
      {
        type: 'done',
        runId: 'child',
        seq: 2,
        at,
        reason: 'model_stop',
        result,
        usage,
        costUsd: 0.25,
        steps: 1,
        durationMs: 1,
        ...child,
      },
      {
        type: 'done',
        runId: 'parent',
        seq: 3,
        at,
        reason: 'model_stop',
        result,
        usage,
        costUsd: 0.5,
        steps: 2,
        durationMs: 2,
      },
    ]
    for (const event of stream) recorder.record(event, { startUrl: 'https://example.com/' })
    await recorder.flush()
    expect(failures).toEqual([])
    expect(await store.getRun('parent')).toMatchObject({
      status: 'completed',
      task: 'the task',
      costUsd: 0.5,
      steps: 2,
    })
    expect((await store.events('parent')).map((event) => event.seq)).toEqual([0, 3])
    expect(await store.childRuns('parent')).toMatchObject([
      { id: 'child', status: 'completed', costUsd: 0.25 },
    ])
    // Under its own run a sub-agent's events carry its own seq.
    expect((await store.events('child')).map((event) => [event.type, event.seq])).toEqual([
      ['run_started', 0],
      ['done', 1],
    ])
    await store.close()
  })

  test('runs are listed newest first, in pages that neither repeat nor skip', async () => {
    const store = await create()
    // Two runs share a timestamp: the id breaks the tie.
    const stamps = ['01', '02', '02', '03', '04', '05', '06']
    for (const [index, stamp] of stamps.entries()) {
      await store.createRun(newRun(`r${index}`, `2025-01-01T00:00:${stamp}.000Z`))
    }
    const seen: string[] = []
    let cursor: string | undefined
    let pages = 0
    do {
      const page = await store.listRuns({ limit: 3, ...(cursor ? { cursor } : {}) })
      seen.push(...page.runs.map((run) => run.id))
      cursor = page.nextCursor
      pages++
    } while (cursor)
    expect(pages).toBe(3)
    expect(seen).toEqual(['r6', 'r5', 'r4', 'r3', 'r2', 'r1', 'r0'])
    expect((await store.listRuns({ limit: 7 })).nextCursor).toBeUndefined()
    await expect(store.listRuns({ cursor: 'not-a-cursor' })).rejects.toThrow(InvalidCursorError)
    await store.close()
  })

  test('runs whose process died are marked failed and end with a done event', async () => {
    const store = await create()
    await store.createRun(newRun('dead', undefined, 111))
    await store.createRun(newRun('alive', undefined, 222))
    await store.createRun(newRun('finished', undefined, 111))
    await store.appendEvents(events('dead', 4))
    await store.finishRun('finished', {
      reason: 'model_stop',
      result: { success: true, text: 'ok' },
      usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
      steps: 1,
      finishedAt: '2025-01-01T00:00:09.000Z',
    })
    const at = new Date('2025-01-01T00:00:30.000Z')
    expect(await store.markInterruptedRuns({ at, isOwnerGone: (owner) => owner.pid !== 222 })).toEqual([
      'dead',
    ])
    expect(await store.getRun('dead')).toMatchObject({
      status: 'failed',
      reason: 'error',
      result: { success: false },
      steps: 2,
      finishedAt: at.toISOString(),
    })
    const last = (await store.events('dead')).at(-1)
    expect(last).toMatchObject({ type: 'done', seq: 4, reason: 'error', steps: 2, durationMs: 30_000 })
    expect((await store.getRun('alive'))?.status).toBe('running')
    expect((await store.getRun('finished'))?.status).toBe('completed')
    await store.close()
  })

  test('the event writer batches pushes into one write per tick', async () => {
    const store = await create()
    await store.createRun(newRun('r1'))
    const writes: number[] = []
    const appendEvents = store.appendEvents.bind(store)
    store.appendEvents = (batch) => {
      writes.push(batch.length)
      return appendEvents(batch)
    }
    const writer = new EventWriter(store, (error) => {
      throw error
    })
    for (const event of events('r1', 10)) writer.push(event)
    // Nothing is written in the pushes' own tick. (Read from the store, this raced a store whose read
    // takes longer than a tick: on Postgres the batch was sometimes in by the time the read ran.)
    expect(writes).toEqual([])
    await new Promise((resolve) => setImmediate(resolve))
    await writer.flush()
    expect(writes).toEqual([10])
    writer.push(events('r1', 11)[10]!)
    await writer.flush()
    expect((await store.events('r1')).map((event) => event.seq)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    await store.close()
  })
})

describe('SqliteRunStore on disk', () => {
  test('runs and events survive reopening; interrupted runs are marked at open', async () => {
    const path = join(tempDir, 'nested', 'folder', 'sextant.db')
    const first = new SqliteRunStore(path)
    await first.createRun(newRun('finished'))
    await first.appendEvents(events('finished', 3))
    await first.finishRun('finished', {
      reason: 'model_stop',
      result: { success: true, text: 'ok' },
      usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 },
      steps: 1,
      finishedAt: '2025-01-01T00:00:09.000Z',
    })
    // Recorded by this very pid: to the next opening it belongs to an earlier process.
    await first.createRun(newRun('live', '2025-01-01T00:00:05.000Z'))
    await first.appendEvents(events('live', 2))
    await first.close()

    const { store: second, interrupted } = await openRunStore(path)
    expect(interrupted).toEqual(['live'])
    expect(await second.getRun('finished')).toMatchObject({ status: 'completed', usage: { totalTokens: 3 } })
    expect(await second.events('finished')).toEqual(events('finished', 3))
    expect(await second.getRun('live')).toMatchObject({ status: 'failed', reason: 'error' })
    expect((await second.listRuns()).runs.map((run) => run.id)).toEqual(['live', 'finished'])
    await second.close()
  })
})

test("a recorder writes a run's events only once the store has created it, however slow that is", async () => {
  // A store answering over a network: the run's row lands well after its first events were pushed.
  class SlowToCreate extends MemoryRunStore {
    override async createRun(run: NewRun): Promise<void> {
      await new Promise((resolve) => setTimeout(resolve, 30))
      await super.createRun(run)
    }
  }
  const store = new SlowToCreate()
  const recorder = new RunRecorder(store, {
    owner: { pid: process.pid, host: here, id: recordedId },
    onError: () => {},
  })
  for (const event of events('r1', 4)) recorder.record(event)
  await recorder.flush()
  expect((await store.events('r1')).map((event) => event.seq)).toEqual([0, 1, 2, 3])
})

test('isOtherProcessAlive tells a running process from a gone one, and never counts this process', () => {
  expect(isOtherProcessAlive(process.ppid)).toBe(true)
  expect(isOtherProcessAlive(process.pid)).toBe(false)
  expect(isOtherProcessAlive(2 ** 22 + 12_345)).toBe(false)
})

describe('who owns a run', () => {
  const seenAt = '2025-01-01T00:10:00.000Z'
  const fresh = { seenAt, silentMs: 5_000, id: 'other' }
  const stale = { seenAt, silentMs: ownerLeaseMs + 1, id: 'other' }
  const self = thisProcess()

  test('on this host a dead pid is gone at once; a live one only once its lease lapsed (the pid was reused)', () => {
    expect(isOwnerGone({ pid: 2 ** 22 + 99, host: here, ...fresh }, self)).toBe(true)
    expect(isOwnerGone({ pid: process.ppid, host: here, ...fresh }, self)).toBe(false)
    expect(isOwnerGone({ pid: process.ppid, host: here, ...stale }, self)).toBe(true)
  })

  test('on another host (or container) the pid says nothing: only the lease decides', () => {
    expect(isOwnerGone({ pid: 2 ** 22 + 99, host: 'elsewhere', ...fresh }, self)).toBe(false)
    expect(isOwnerGone({ pid: process.ppid, host: 'elsewhere', ...stale }, self)).toBe(true)
  })

  test('the lease is the one given (SEXTANT_LEASE_MS), and this very process is never gone', () => {
    expect(isOwnerGone({ pid: process.ppid, host: 'elsewhere', ...stale }, self, ownerLeaseMs * 2)).toBe(
      false,
    )
    expect(isOwnerGone({ ...self, seenAt, silentMs: ownerLeaseMs * 10 }, self)).toBe(false)
    // Same pid and host, another id: an earlier process that had this pid.
    expect(isOwnerGone({ ...self, ...fresh }, self)).toBe(true)
  })

  test("a process's id is random, drawn once: two owners with one pid and host are two owners", () => {
    expect(thisProcess()).toBe(thisProcess())
    expect(thisProcess().id).toMatch(/^[0-9a-f]{16}$/)
    expect(isSameOwner(self, { ...self, id: 'another-process' })).toBe(false)
  })

  // PostgreSQL records a lease on its own clock, whatever the run's createdAt says: test/store/postgres-clock.test.ts.
  test.each([
    ...implementations.filter(([name]) => name.startsWith('Memory') || name.endsWith('(:memory:)')),
  ])(
    '%s: a heartbeat keeps a run of another host from being marked; without one its lease lapses',
    async (_name, create) => {
      const store = await create()
      const created = new Date(Date.now() - ownerLeaseMs * 2).toISOString()
      await store.createRun(newRun('beating', created, 4242, 'elsewhere'))
      await store.createRun(newRun('silent', created, 4242, 'other-host'))
      await store.heartbeat({ pid: 4242, host: 'elsewhere', id: recordedId }, new Date())
      expect(await markInterruptedRuns(store)).toEqual(['silent'])
      expect((await store.getRun('beating'))?.status).toBe('running')
      expect(await store.getRun('silent')).toMatchObject({ status: 'failed', reason: 'error' })
      await store.close()
    },
  )
})

test('a schema 1 database opens: its runs know only a pid, read as owned on this host', async () => {
  const path = join(tempDir, 'schema-1.db')
  const old = new DatabaseSync(path)
  old.exec(`CREATE TABLE runs (id TEXT PRIMARY KEY, task TEXT NOT NULL, model TEXT NOT NULL, start_url TEXT,
    status TEXT NOT NULL, reason TEXT, result TEXT, input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0, total_tokens INTEGER NOT NULL DEFAULT 0,
    steps INTEGER NOT NULL DEFAULT 0, created_at TEXT NOT NULL, finished_at TEXT, owner_pid INTEGER NOT NULL);
    PRAGMA user_version = 1;`)
  const insert = old.prepare(
    `INSERT INTO runs (id, task, model, status, created_at, owner_pid) VALUES (?, 't', 'm', 'running', ?, ?)`,
  )
  insert.run('orphan', new Date().toISOString(), 2 ** 22 + 5)
  insert.run('live', new Date().toISOString(), process.ppid)
  old.close()

  const { store, interrupted } = await openRunStore(path)
  expect(interrupted).toEqual(['orphan'])
  expect((await store.getRun('live'))?.status).toBe('running')
  await store.createRun(newRun('new'))
  expect((await store.getRun('new'))?.status).toBe('running')
  await store.close()
})

describe.skipIf(!hasPostgres)('PostgresRunStore between servers', () => {
  test('a reply is recorded once, whichever server records it first; every listener hears of it', async () => {
    const url = await createTestDatabase('replies')
    const first = new PostgresRunStore(url, { maxConnections: 2 })
    const second = new PostgresRunStore(url, { maxConnections: 2 })
    const heard: unknown[] = []
    await second.listen({
      onControl: (message) => heard.push(message),
      onQueue: () => {},
    })
    await first.createRun(newRun('r1'))
    const message = { kind: 'confirmation', runId: 'r1', id: 'call_1', approve: true } as const
    const recorded = await Promise.all([first.recordReply(message), second.recordReply(message)])
    expect(recorded.sort()).toEqual([false, true])
    await until(() => heard.length > 0)
    expect(heard).toEqual([message])
    await first.close()
    await second.close()
  })

  test('replies of any length reach every listener whole: a 20,000-character answer and a confirmation', async () => {
    const url = await createTestDatabase('long_replies')
    const first = new PostgresRunStore(url, { maxConnections: 2 })
    const second = new PostgresRunStore(url, { maxConnections: 2 })
    const heard: unknown[] = []
    await second.listen({
      onControl: (message) => heard.push(message),
      onQueue: () => {},
    })
    await first.createRun(newRun('r1'))
    const answer = { kind: 'answer', runId: 'r1', id: 'q_1', answer: 'ü'.repeat(20_000) } as const
    const confirmation = { kind: 'confirmation', runId: 'r1', id: 'call_2', approve: false } as const
    expect(await first.recordReply(answer)).toBe(true)
    expect(await first.recordReply(confirmation)).toBe(true)
    await until(() => heard.length === 2)
    expect(heard).toEqual([answer, confirmation])
    await first.close()
    await second.close()
  })

  test("a stored done ends the run with its cost in the events' transaction", async () => {
    const store = await postgresStore()
    await store.createRun(newRun('r1'))
    const done: AgentEvent = {
      type: 'done',
      runId: 'r1',
      seq: 0,
      at: '2025-01-01T00:01:00.000Z',
      reason: 'model_stop',
      result: { success: true, text: 'ok' },
      usage: { inputTokens: 3, outputTokens: 1, totalTokens: 4, cachedInputTokens: 2 },
      costUsd: 0.5,
      steps: 1,
      durationMs: 60_000,
    }
    await store.appendEvents([done])
    expect(await store.getRun('r1')).toMatchObject({
      status: 'completed',
      costUsd: 0.5,
      usage: { cachedInputTokens: 2 },
      finishedAt: done.at,
    })
    await store.close()
  })

  test('a database of migration 1 is brought up to date: its runs have an unknown cost and no parent', async () => {
    const url = await createTestDatabase('migrate')
    const old = postgres(url, { max: 1, onnotice: () => {} })
    await old.unsafe(
      'CREATE TABLE sextant_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())',
    )
    const first = migrations.find((step) => step.version === 1)
    await old.unsafe(first?.sql ?? '')
    await old`INSERT INTO sextant_migrations (version) VALUES (1)`
    await old`INSERT INTO runs (id, task, model, status, reason, result, created_at, finished_at, owner_pid, owner_host, owner_seen_at)
      VALUES ('before', 't', 'm', 'completed', 'model_stop', '{"success":true,"text":""}', ${'2025-01-01T00:00:00.000Z'},
        ${'2025-01-01T00:01:00.000Z'}, 1, 'h', ${'2025-01-01T00:00:00.000Z'})`
    await old.end()

    const store = new PostgresRunStore(url, { maxConnections: 2 })
    await store.ready()
    expect(await store.getRun('before')).toMatchObject({ status: 'completed', costUsd: null })
    expect((await store.getRun('before'))?.parentRunId).toBeUndefined()
    await store.createRun({ ...newRun('child'), parentRunId: 'before' })
    expect((await store.childRuns('before')).map((run) => run.id)).toEqual(['child'])
    await store.close()
  })

  test('queued runs are claimed oldest first, each by one claimer; their position moves up', async () => {
    const url = await createTestDatabase('queue')
    const store = new PostgresRunStore(url, { maxConnections: 4 })
    for (const id of ['q1', 'q2', 'q3']) await store.enqueueRun(newRun(id), { task: `task ${id}` })
    expect((await store.queuePositions(['q3'])).get('q3')).toBe(3)
    expect((await store.getRun('q1'))?.status).toBe('queued')
    const owner = { pid: 1, host: 'claimer', id: 'claimer-id' }
    const claims = await Promise.all([1, 2, 3, 4].map(() => store.claimQueuedRun(owner, new Date())))
    const claimed = claims.flatMap((claim) => (claim ? [claim.run.id] : []))
    expect(claimed.sort()).toEqual(['q1', 'q2', 'q3'])
    expect(claims.filter((claim) => claim === undefined)).toHaveLength(1)
    expect((await store.queuePositions(['q3'])).get('q3')).toBeUndefined()
    expect(await store.queueDepth()).toBe(0)
    expect((await store.getRun('q1'))?.status).toBe('running')
    await store.close()
  })
})

test('a schema 2 database opens: its finished runs have an unknown cost, new runs keep theirs', async () => {
  const path = join(tempDir, 'schema-2.db')
  const old = new DatabaseSync(path)
  old.exec(`CREATE TABLE runs (id TEXT PRIMARY KEY, task TEXT NOT NULL, model TEXT NOT NULL, start_url TEXT,
    status TEXT NOT NULL, reason TEXT, result TEXT, input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0, total_tokens INTEGER NOT NULL DEFAULT 0,
    steps INTEGER NOT NULL DEFAULT 0, created_at TEXT NOT NULL, finished_at TEXT, owner_pid INTEGER NOT NULL,
    owner_host TEXT, owner_seen_at TEXT);
    PRAGMA user_version = 2;`)
  old
    .prepare(
      `INSERT INTO runs (id, task, model, status, reason, result, total_tokens, created_at, finished_at, owner_pid)
       VALUES ('old', 't', 'm', 'completed', 'model_stop', '{"success":true,"text":""}', 9, ?, ?, 1)`,
    )
    .run(new Date().toISOString(), new Date().toISOString())
  old.close()

  const { store } = await openRunStore(path)
  expect(await store.getRun('old')).toMatchObject({
    status: 'completed',
    costUsd: null,
    usage: { totalTokens: 9 },
  })
  await store.createRun(newRun('priced'))
  expect(await store.getRun('priced')).not.toHaveProperty('costUsd')
  await store.finishRun('priced', {
    reason: 'model_stop',
    result: { success: true, text: '' },
    usage: { inputTokens: 10, outputTokens: 2, totalTokens: 12, cachedInputTokens: 8 },
    costUsd: 0.0125,
    steps: 1,
    finishedAt: new Date().toISOString(),
  })
  expect(await store.getRun('priced')).toMatchObject({ costUsd: 0.0125, usage: { cachedInputTokens: 8 } })
  await store.close()
})

test('a schema 3 database opens: its runs are all top-level, and new runs may have a parent', async () => {
  const path = join(tempDir, 'schema-3.db')
  const old = new DatabaseSync(path)
  old.exec(`CREATE TABLE runs (id TEXT PRIMARY KEY, task TEXT NOT NULL, model TEXT NOT NULL, start_url TEXT,
    status TEXT NOT NULL, reason TEXT, result TEXT, input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0, total_tokens INTEGER NOT NULL DEFAULT 0,
    cached_input_tokens INTEGER, cost_usd REAL,
    steps INTEGER NOT NULL DEFAULT 0, created_at TEXT NOT NULL, finished_at TEXT, owner_pid INTEGER NOT NULL,
    owner_host TEXT, owner_seen_at TEXT);
    PRAGMA user_version = 3;`)
  old
    .prepare(
      `INSERT INTO runs (id, task, model, status, created_at, owner_pid, owner_host) VALUES (?, 't', 'm', 'completed', ?, ?, ?)`,
    )
    .run('before', new Date().toISOString(), process.pid, here)
  old.close()

  const store = new SqliteRunStore(path)
  expect(await store.getRun('before')).toMatchObject({ id: 'before', status: 'completed' })
  expect((await store.getRun('before'))?.parentRunId).toBeUndefined()
  await store.createRun({ ...newRun('child'), parentRunId: 'before' })
  expect((await store.childRuns('before')).map((run) => run.id)).toEqual(['child'])
  await store.close()
  const reopened = new SqliteRunStore(path)
  expect((await reopened.getRun('child'))?.parentRunId).toBe('before')
  await reopened.close()
})
