import postgres from 'postgres'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { AgentEvent } from '../../../src/events/events.ts'
import { queueTimeoutText } from '../../../src/store/interrupted.ts'
import { markInterruptedRuns } from '../../../src/store/open-store.ts'
import type { RunOwner } from '../../../src/store/owner.ts'
import { PostgresRunStore } from '../../../src/store/postgres/postgres-store.ts'
import type { NewRun } from '../../../src/store/run-store.ts'
import { RunFencedError } from '../../../src/store/store-errors.ts'
import { createTestDatabase, hasPostgres } from '../../support/postgres.ts'

// Leases on the database's clock, owners told apart by their id, and the queue's order, bound and timeout.

/** Two processes that share a pid and a host (pid 1 in two containers named alike): only their ids differ. */
const first: RunOwner = { pid: 1, host: 'shared-name pid:[1]', id: 'first' }
const second: RunOwner = { pid: 1, host: 'shared-name pid:[1]', id: 'second' }

function newRun(id: string, owner: RunOwner, createdAt = new Date().toISOString()): NewRun {
  return { id, task: `task ${id}`, model: 'test/model', createdAt, owner }
}

function started(runId: string, seq: number): AgentEvent {
  return { type: 'step_started', runId, seq, at: new Date().toISOString(), step: seq + 1, maxTurns: 9 }
}

describe.skipIf(!hasPostgres)('PostgreSQL: leases, owners, queue', () => {
  let url: string
  let store: PostgresRunStore
  let raw: postgres.Sql
  beforeAll(async () => {
    url = await createTestDatabase('lease')
    store = new PostgresRunStore(url, { maxConnections: 4 })
    await store.ready()
    raw = postgres(url, { max: 1, onnotice: () => {} })
  })
  afterAll(async () => {
    await raw.end()
    await store.close()
  })

  test("a lease is written and judged on the database's clock: a server 30 s behind keeps its run", async () => {
    const behind = new Date(Date.now() - 30_000)
    await store.createRun(newRun('lagging', first, behind.toISOString()))
    await store.heartbeat(first, behind)
    // The lagging server's own clock said 30 s ago; the lease says now.
    const [row] = await raw<
      { silent: number }[]
    >`SELECT extract(epoch FROM now() - owner_seen_at::timestamptz) AS silent
      FROM runs WHERE id = 'lagging'`
    expect(Number(row?.silent)).toBeLessThan(10)
    expect(await markInterruptedRuns(store, { leaseMs: 20_000 })).toEqual([])
    expect((await store.getRun('lagging'))?.status).toBe('running')
  })

  test('every sweep honours the lease it is given (SEXTANT_LEASE_MS)', async () => {
    await store.createRun(newRun('quiet', second))
    await raw`UPDATE runs SET owner_seen_at = to_char((now() - interval '25 seconds') AT TIME ZONE 'UTC',
      'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') WHERE id = 'quiet'`
    expect(await markInterruptedRuns(store, { leaseMs: 60_000 })).not.toContain('quiet')
    expect(await markInterruptedRuns(store, { leaseMs: 20_000 })).toContain('quiet')
    expect(await store.getRun('quiet')).toMatchObject({ status: 'failed', reason: 'error' })
  })

  test('two owners with one pid and host are two owners: neither renews nor writes the other’s runs', async () => {
    await store.createRun(newRun('of-first', first))
    await store.createRun(newRun('of-second', second))
    expect(await store.heartbeat(first, new Date())).toContain('of-first')
    expect(await store.heartbeat(first, new Date())).not.toContain('of-second')
    await store.appendEvents([started('of-first', 0)], first)
    await expect(store.appendEvents([started('of-second', 0)], first)).rejects.toBeInstanceOf(RunFencedError)
    expect(await store.events('of-second')).toEqual([])
    const [row] = await raw<{ owner_id: string }[]>`SELECT owner_id FROM runs WHERE id = 'of-second'`
    expect(row?.owner_id).toBe('second')
  })

  test('the queue is claimed by priority, first come within one; its position counts in that order', async () => {
    await store.enqueueRun(newRun('low', first), {}, { priority: -1 })
    await store.enqueueRun(newRun('normal-1', first), {})
    await store.enqueueRun(newRun('high', first), {}, { priority: 5 })
    await store.enqueueRun(newRun('normal-2', first), {}, { priority: 0 })
    const places = await store.queuePositions(['high', 'normal-2', 'low', 'unknown'])
    expect(places).toEqual(
      new Map([
        ['high', 1],
        ['normal-2', 3],
        ['low', 4],
      ]),
    )
    const order: string[] = []
    for (;;) {
      const claimed = await store.claimQueuedRun(second, new Date())
      if (!claimed) break
      order.push(claimed.run.id)
    }
    expect(order).toEqual(['high', 'normal-1', 'normal-2', 'low'])
  })

  test('a queue at its bound takes no more: enqueueRun answers false and stores nothing', async () => {
    const results = await Promise.all(
      ['b1', 'b2', 'b3', 'b4', 'b5'].map((id) => store.enqueueRun(newRun(id, first), {}, { max: 3 })),
    )
    expect(results.filter(Boolean)).toHaveLength(3)
    expect(await store.queueDepth()).toBe(3)
    const refused = ['b1', 'b2', 'b3', 'b4', 'b5'].filter((_, index) => !results[index])
    for (const id of refused) expect(await store.getRun(id)).toBeUndefined()
    while (await store.claimQueuedRun(second, new Date())) {}
  })

  test('a queued run past its timeout is never claimed, and is ended error, saying it waited too long', async () => {
    await store.enqueueRun(newRun('patient', first), {})
    await store.enqueueRun(newRun('hasty', first), {}, { priority: 9, timeoutMs: 1000 })
    // Its deadline passed (on the database's clock, as every expiry is judged).
    await raw`UPDATE queue SET expires_at = now() - interval '1 second' WHERE run_id = 'hasty'`
    expect((await store.claimQueuedRun(second, new Date()))?.run.id).toBe('patient')
    expect(await store.claimQueuedRun(second, new Date())).toBeUndefined()
    expect(await store.expireQueuedRuns(new Date())).toEqual(['hasty'])
    expect(await store.expireQueuedRuns(new Date())).toEqual([])
    expect(await store.getRun('hasty')).toMatchObject({
      status: 'failed',
      reason: 'error',
      result: { success: false, text: queueTimeoutText(1000) },
    })
    expect(queueTimeoutText(1000)).toContain('waited too long in the queue')
    expect((await store.events('hasty')).map((event) => event.type)).toEqual(['done'])
    expect(await store.queueDepth()).toBe(0)
  })
})
