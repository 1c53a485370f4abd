import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { afterAll, expect, test } from 'vitest'
import type { AgentEvent } from '../../src/events/events.ts'
import { EventWriter, type EventWriterOptions } from '../../src/store/event-writer.ts'
import { thisProcess } from '../../src/store/owner.ts'
import { SqliteRunStore } from '../../src/store/sqlite-store.ts'
import { until } from '../support/until.ts'

// The writer against a SQLite file another connection holds locked: the store
// is away, then back. Nothing pushed meanwhile may be lost or land out of order.

const tempDir = mkdtempSync(join(tmpdir(), 'sextant-writer-'))
afterAll(() => rmSync(tempDir, { recursive: true, force: true }))

/** A stored event (text_delta is live-only: the writer never stores it). */
function delta(runId: string, seq: number): AgentEvent {
  return {
    type: 'warning',
    runId,
    seq,
    at: new Date().toISOString(),
    code: 'event_truncated',
    message: `t${seq}`,
  }
}

/** A store on a new file, a run in it, and a second connection that can hold the file's write lock. */
async function lockedStore(runIds: string[]) {
  const path = join(tempDir, `${Math.random().toString(36).slice(2)}.db`)
  // A short busy wait: each write fails fast while the lock is held, instead of blocking for 5 s.
  const store = new SqliteRunStore(path, { busyTimeoutMs: 20 })
  for (const id of runIds) {
    await store.createRun({
      id,
      task: 't',
      model: 'm',
      createdAt: new Date().toISOString(),
      owner: thisProcess(),
    })
  }
  const other = new DatabaseSync(path)
  return {
    store,
    lock: () => other.exec('BEGIN IMMEDIATE'),
    unlock: () => other.exec('ROLLBACK'),
    close: async () => {
      other.close()
      await store.close()
    },
  }
}

function recordingWriter(store: SqliteRunStore, options: EventWriterOptions = {}) {
  const seen = { outages: 0, retries: 0, recoveries: 0, overflows: [] as string[], lost: 0 }
  const writer = new EventWriter(store, (_error, lost) => (seen.lost += lost), {
    retryMs: 5,
    maxRetryMs: 20,
    onOutage: () => seen.outages++,
    onRetry: () => seen.retries++,
    onRecovered: () => seen.recoveries++,
    onOverflow: (runId) => seen.overflows.push(runId),
    ...options,
  })
  return { writer, seen }
}

const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length

test('while SQLite is locked by another connection, events wait and retry; once free, all land in order', async () => {
  const db = await lockedStore(['r1'])
  const { writer, seen } = recordingWriter(db.store)
  for (let seq = 0; seq < 5; seq++) writer.push(delta('r1', seq))
  await writer.flush()
  db.lock()
  for (let seq = 5; seq < 40; seq++) {
    writer.push(delta('r1', seq))
    // A batch per tick, as a live run's stream makes them.
    if (seq % 5 === 0) await new Promise((resolve) => setImmediate(resolve))
  }
  await until(() => seen.retries >= 3)
  expect(seen.outages).toBe(1)
  expect(writer.buffered).toBe(35)
  db.unlock()
  await writer.flush()
  expect(seen).toMatchObject({ outages: 1, recoveries: 1, lost: 0, overflows: [] })
  expect((await db.store.events('r1')).map((event) => event.seq)).toEqual([...Array(40).keys()])
  await writer.close()
  await db.close()
})

test('a run that pushes past the bound is told once, and its events are kept, not dropped', async () => {
  const db = await lockedStore(['r1', 'r2'])
  const { writer, seen } = recordingWriter(db.store, { maxBuffered: 10 })
  db.lock()
  for (let seq = 0; seq < 8; seq++) writer.push(delta('r1', seq))
  expect(seen.overflows).toEqual([])
  for (let seq = 0; seq < 6; seq++) writer.push(delta('r2', seq))
  writer.push(delta('r1', 8))
  expect(seen.overflows).toEqual(['r2', 'r1'])
  await until(() => seen.retries >= 2)
  db.unlock()
  await writer.flush()
  expect((await db.store.events('r1')).map((event) => event.seq)).toEqual([...Array(9).keys()])
  expect((await db.store.events('r2')).map((event) => event.seq)).toEqual([...Array(6).keys()])
  expect(seen.lost).toBe(0)
  await writer.close()
  await db.close()
})

test('closed during an outage, the writer reports what it could not store and leaves no timer running', async () => {
  const db = await lockedStore(['r1'])
  const { writer, seen } = recordingWriter(db.store, { retryMs: 60_000, maxRetryMs: 60_000 })
  db.lock()
  for (let seq = 0; seq < 3; seq++) writer.push(delta('r1', seq))
  await until(() => seen.retries >= 1)
  // Waiting a minute before its next try. (Compared with itself, not with a count taken earlier:
  // other timers of the test process come and go meanwhile on a busy machine.)
  const waiting = timers()
  expect(waiting).toBeGreaterThanOrEqual(1)
  writer.push(delta('r1', 3))
  await writer.close()
  expect(seen.lost).toBe(4)
  expect(timers()).toBe(waiting - 1)
  db.unlock()
  expect(await db.store.events('r1')).toEqual([])
  await db.close()
})
