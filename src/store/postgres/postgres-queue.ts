import type { Sql, TransactionSql } from 'postgres'
import type { RunOwner } from '../owner.ts'
import { dbNow } from './postgres-clock.ts'

/**
 * The shared queue's SQL: claimed highest priority first, first come within
 * one, never past its deadline (on the database's clock), and bounded under
 * one lock so servers enqueueing at once never let it grow past its limit.
 */

/** Told on every change of the queue: a claim, an enqueue, an expiry. */
export const queueChannel = 'sextant_queue'

/** Any number to tell our lock from others': enqueueing under SEXTANT_QUEUE_MAX takes it, one server at a time. */
const queueLock = 0x5e7a51

/** Whether one more run fits under `max` (none: always), holding the queue's lock until the transaction ends. */
export async function queueRoomTaken(tx: TransactionSql, max: number | undefined): Promise<boolean> {
  if (max === undefined) return true
  await tx`SELECT pg_advisory_xact_lock(${queueLock})`
  return (await queueSize(tx)) < max
}

/** Takes the next run for `owner`: its queue entry leaves, the run is this owner's from now, on the database's clock. */
export async function claimNext(
  tx: TransactionSql,
  owner: RunOwner,
): Promise<{ run_id: string; request: string } | undefined> {
  const [entry] = await tx<{ run_id: string; request: string }[]>`DELETE FROM queue WHERE position = (
      SELECT position FROM queue WHERE expires_at IS NULL OR expires_at > now()
      ORDER BY priority DESC, position LIMIT 1 FOR UPDATE SKIP LOCKED
    ) RETURNING run_id, request`
  if (!entry) return undefined
  await tx`UPDATE runs SET status = 'running', owner_pid = ${owner.pid}, owner_host = ${owner.host},
    owner_id = ${owner.id}, owner_seen_at = ${dbNow(tx)}, owner_url = ${owner.url ?? null} WHERE id = ${entry.run_id}`
  // Every waiting run moved up one place.
  await tx`SELECT pg_notify(${queueChannel}, '')`
  return entry
}

/**
 * Places in claim order (every run of a higher priority, and those of the
 * same that came first), of many runs in one pass over the queue's order
 * index: what the followers of one server ask at each move of the queue.
 */
export async function placesInQueue(sql: Sql, runIds: readonly string[]): Promise<Map<string, number>> {
  if (runIds.length === 0) return new Map()
  const rows = await sql<{ run_id: string; place: number }[]>`SELECT run_id, place FROM (
      SELECT run_id, row_number() OVER (ORDER BY priority DESC, position)::int AS place FROM queue
    ) ordered WHERE run_id = ANY(${sql.array([...runIds])})`
  return new Map(rows.map((row) => [row.run_id, row.place]))
}

export async function queueSize(sql: Sql | TransactionSql): Promise<number> {
  const [row] = await sql<{ depth: number }[]>`SELECT count(*)::int AS depth FROM queue`
  return row?.depth ?? 0
}
