import { mkdtempSync, rmSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { afterAll, describe, expect, test } from 'vitest'
import type { AgentEvent } from '../../src/events/events.ts'
import { InvalidCursorError } from '../../src/store/cursor.ts'
import { EventWriter } from '../../src/store/event-writer.ts'
import {
  isOtherProcessAlive,
  isOwnerGone,
  markInterruptedRuns,
  openRunStore,
  ownerLeaseMs,
} from '../../src/store/index.ts'
import { MemoryRunStore } from '../../src/store/memory-store.ts'
import { SqliteRunStore } from '../../src/store/sqlite-store.ts'
import type { NewRun, RunStore } from '../../src/store/types.ts'

const tempDir = mkdtempSync(join(tmpdir(), 'sextant-store-'))
afterAll(() => rmSync(tempDir, { recursive: true, force: true }))

const here = hostname()

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
    owner: { pid: ownerPid, host },
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
            type: 'text_delta',
            runId,
            seq,
            at: '2025-01-01T00:00:01.000Z',
            field: 'memory',
            text: `t${seq}`,
          },
    )
  }
  return list
}

const implementations: [string, () => RunStore][] = [
  ['MemoryRunStore', () => new MemoryRunStore()],
  ['SqliteRunStore (:memory:)', () => new SqliteRunStore(':memory:')],
  [
    'SqliteRunStore (file)',
    () => new SqliteRunStore(join(tempDir, `${Math.random().toString(36).slice(2)}.db`)),
  ],
]

describe.each(implementations)('%s', (_name, create) => {
  test('a new run is running, with no usage yet', () => {
    const store = create()
    store.createRun(newRun('r1'))
    expect(store.getRun('r1')).toEqual({
      id: 'r1',
      status: 'running',
      task: 'task of r1',
      model: 'test/model',
      startUrl: 'https://example.com/',
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      steps: 0,
      createdAt: '2025-01-01T00:00:00.000Z',
    })
    expect(store.getRun('unknown')).toBeUndefined()
    store.close()
  })

  test("a sub-agent's run records its parent, and the parent lists its children oldest first", () => {
    const store = create()
    store.createRun(newRun('parent'))
    store.createRun({ ...newRun('second', '2025-01-01T00:00:02.000Z'), parentRunId: 'parent' })
    store.createRun({ ...newRun('first', '2025-01-01T00:00:01.000Z'), parentRunId: 'parent' })
    expect(store.getRun('first')?.parentRunId).toBe('parent')
    expect(store.getRun('parent')?.parentRunId).toBeUndefined()
    expect(store.childRuns('parent').map((run) => run.id)).toEqual(['first', 'second'])
    expect(store.childRuns('first')).toEqual([])
    store.close()
  })

  test('events come back in seq order, all or after a seq; duplicates and unknown runs are skipped', () => {
    const store = create()
    store.createRun(newRun('r1'))
    const list = events('r1', 6)
    store.appendEvents(list.slice(3))
    store.appendEvents([...list.slice(0, 3), list[4]!, ...events('nobody', 2)])
    expect([...store.events('r1')]).toEqual(list)
    expect([...store.events('r1', 3)].map((event) => event.seq)).toEqual([4, 5])
    expect([...store.events('r1', 5)]).toEqual([])
    expect([...store.events('nobody')]).toEqual([])
    store.close()
  })

  test.each([
    ['model_stop', 'completed'],
    ['user_abort', 'stopped'],
    ['max_turns', 'failed'],
    ['error', 'failed'],
  ] as const)('finishing with %s makes the run %s', (reason, status) => {
    const store = create()
    store.createRun(newRun('r1'))
    const outcome = {
      reason,
      result: { success: reason === 'model_stop', text: 'the end' },
      usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
      steps: 3,
      finishedAt: '2025-01-01T00:01:00.000Z',
    }
    store.finishRun('r1', outcome)
    expect(store.getRun('r1')).toMatchObject({ status, ...outcome })
    store.close()
  })

  test('runs are listed newest first, in pages that neither repeat nor skip', () => {
    const store = create()
    // Two runs share a timestamp: the id breaks the tie.
    const stamps = ['01', '02', '02', '03', '04', '05', '06']
    stamps.forEach((stamp, index) => {
      store.createRun(newRun(`r${index}`, `2025-01-01T00:00:${stamp}.000Z`))
    })
    const seen: string[] = []
    let cursor: string | undefined
    let pages = 0
    do {
      const page = store.listRuns({ limit: 3, ...(cursor ? { cursor } : {}) })
      seen.push(...page.runs.map((run) => run.id))
      cursor = page.nextCursor
      pages++
    } while (cursor)
    expect(pages).toBe(3)
    expect(seen).toEqual(['r6', 'r5', 'r4', 'r3', 'r2', 'r1', 'r0'])
    expect(store.listRuns({ limit: 7 }).nextCursor).toBeUndefined()
    expect(() => store.listRuns({ cursor: 'not-a-cursor' })).toThrow(InvalidCursorError)
    store.close()
  })

  test('runs whose process died are marked failed and end with a done event', () => {
    const store = create()
    store.createRun(newRun('dead', undefined, 111))
    store.createRun(newRun('alive', undefined, 222))
    store.createRun(newRun('finished', undefined, 111))
    store.appendEvents(events('dead', 4))
    store.finishRun('finished', {
      reason: 'model_stop',
      result: { success: true, text: 'ok' },
      usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
      steps: 1,
      finishedAt: '2025-01-01T00:00:09.000Z',
    })
    const at = new Date('2025-01-01T00:00:30.000Z')
    expect(store.markInterruptedRuns({ at, isOwnerGone: (owner) => owner.pid !== 222 })).toEqual(['dead'])
    expect(store.getRun('dead')).toMatchObject({
      status: 'failed',
      reason: 'error',
      result: { success: false },
      steps: 2,
      finishedAt: at.toISOString(),
    })
    const last = [...store.events('dead')].at(-1)
    expect(last).toMatchObject({ type: 'done', seq: 4, reason: 'error', steps: 2, durationMs: 30_000 })
    expect(store.getRun('alive')?.status).toBe('running')
    expect(store.getRun('finished')?.status).toBe('completed')
    store.close()
  })

  test('the event writer batches pushes into one write per tick', async () => {
    const store = create()
    store.createRun(newRun('r1'))
    const writes: number[] = []
    const appendEvents = store.appendEvents.bind(store)
    store.appendEvents = (batch) => {
      writes.push(batch.length)
      appendEvents(batch)
    }
    const writer = new EventWriter(store, (error) => {
      throw error
    })
    for (const event of events('r1', 10)) writer.push(event)
    expect([...store.events('r1')]).toEqual([])
    await new Promise((resolve) => setImmediate(resolve))
    expect(writes).toEqual([10])
    writer.push(events('r1', 11)[10]!)
    writer.flush()
    expect([...store.events('r1')].map((event) => event.seq)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    store.close()
  })
})

describe('SqliteRunStore on disk', () => {
  test('runs and events survive reopening; interrupted runs are marked at open', () => {
    const path = join(tempDir, 'nested', 'folder', 'sextant.db')
    const first = new SqliteRunStore(path)
    first.createRun(newRun('finished'))
    first.appendEvents(events('finished', 3))
    first.finishRun('finished', {
      reason: 'model_stop',
      result: { success: true, text: 'ok' },
      usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 },
      steps: 1,
      finishedAt: '2025-01-01T00:00:09.000Z',
    })
    // Recorded by this very pid: to the next opening it belongs to an earlier process.
    first.createRun(newRun('live', '2025-01-01T00:00:05.000Z'))
    first.appendEvents(events('live', 2))
    first.close()

    const { store: second, interrupted } = openRunStore(path)
    expect(interrupted).toEqual(['live'])
    expect(second.getRun('finished')).toMatchObject({ status: 'completed', usage: { totalTokens: 3 } })
    expect([...second.events('finished')]).toEqual(events('finished', 3))
    expect(second.getRun('live')).toMatchObject({ status: 'failed', reason: 'error' })
    expect(second.listRuns().runs.map((run) => run.id)).toEqual(['live', 'finished'])
    second.close()
  })

  test('a writer failure is reported, not thrown', () => {
    const store = new SqliteRunStore(':memory:')
    store.createRun(newRun('r1'))
    store.close()
    const failures: number[] = []
    const writer = new EventWriter(store, (_error, lost) => failures.push(lost))
    writer.push(events('r1', 1)[0]!)
    writer.flush()
    expect(failures).toEqual([1])
  })
})

test('isOtherProcessAlive tells a running process from a gone one, and never counts this process', () => {
  expect(isOtherProcessAlive(process.ppid)).toBe(true)
  expect(isOtherProcessAlive(process.pid)).toBe(false)
  expect(isOtherProcessAlive(2 ** 22 + 12_345)).toBe(false)
})

describe('who owns a run', () => {
  const now = new Date('2025-01-01T00:10:00.000Z')
  const fresh = new Date(now.getTime() - 5_000).toISOString()
  const stale = new Date(now.getTime() - ownerLeaseMs - 1).toISOString()
  const self = { pid: process.pid, host: here }

  test('on this host a dead pid is gone at once; a live one only once its lease lapsed (the pid was reused)', () => {
    expect(isOwnerGone({ pid: 2 ** 22 + 99, host: here, seenAt: fresh }, now, self)).toBe(true)
    expect(isOwnerGone({ pid: process.ppid, host: here, seenAt: fresh }, now, self)).toBe(false)
    expect(isOwnerGone({ pid: process.ppid, host: here, seenAt: stale }, now, self)).toBe(true)
  })

  test('on another host (or container) the pid says nothing: only the lease decides', () => {
    expect(isOwnerGone({ pid: 2 ** 22 + 99, host: 'elsewhere', seenAt: fresh }, now, self)).toBe(false)
    expect(isOwnerGone({ pid: process.ppid, host: 'elsewhere', seenAt: stale }, now, self)).toBe(true)
  })

  test.each([
    ['SQLite', () => new SqliteRunStore(':memory:')],
    ['memory', () => new MemoryRunStore()],
  ])(
    '%s: a heartbeat keeps a run of another host from being marked; without one its lease lapses',
    (_name, create) => {
      const store = create()
      const created = new Date(Date.now() - ownerLeaseMs * 2).toISOString()
      store.createRun(newRun('beating', created, 4242, 'elsewhere'))
      store.createRun(newRun('silent', created, 4242, 'other-host'))
      store.heartbeat({ pid: 4242, host: 'elsewhere' }, new Date())
      expect(markInterruptedRuns(store)).toEqual(['silent'])
      expect(store.getRun('beating')?.status).toBe('running')
      expect(store.getRun('silent')).toMatchObject({ status: 'failed', reason: 'error' })
      store.close()
    },
  )
})

test('a schema 1 database opens: its runs know only a pid, read as owned on this host', () => {
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

  const { store, interrupted } = openRunStore(path)
  expect(interrupted).toEqual(['orphan'])
  expect(store.getRun('live')?.status).toBe('running')
  store.createRun(newRun('new'))
  expect(store.getRun('new')?.status).toBe('running')
  store.close()
})

test('a schema 2 database opens: its finished runs have an unknown cost, new runs keep theirs', () => {
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

  const { store } = openRunStore(path)
  expect(store.getRun('old')).toMatchObject({ status: 'completed', costUsd: null, usage: { totalTokens: 9 } })
  store.createRun(newRun('priced'))
  expect(store.getRun('priced')).not.toHaveProperty('costUsd')
  store.finishRun('priced', {
    reason: 'model_stop',
    result: { success: true, text: '' },
    usage: { inputTokens: 10, outputTokens: 2, totalTokens: 12, cachedInputTokens: 8 },
    costUsd: 0.0125,
    steps: 1,
    finishedAt: new Date().toISOString(),
  })
  expect(store.getRun('priced')).toMatchObject({ costUsd: 0.0125, usage: { cachedInputTokens: 8 } })
  store.close()
})

test('a schema 3 database opens: its runs are all top-level, and new runs may have a parent', () => {
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
  expect(store.getRun('before')).toMatchObject({ id: 'before', status: 'completed' })
  expect(store.getRun('before')?.parentRunId).toBeUndefined()
  store.createRun({ ...newRun('child'), parentRunId: 'before' })
  expect(store.childRuns('before').map((run) => run.id)).toEqual(['child'])
  store.close()
  const reopened = new SqliteRunStore(path)
  expect(reopened.getRun('child')?.parentRunId).toBe('before')
  reopened.close()
})
