import { createHash } from 'node:crypto'
import type { Sql, TransactionSql } from 'postgres'
import type { AgentEvent } from '../../events/events.ts'
import type { RunOwner } from '../owner.ts'
import { outcomeOf, statusForReason } from '../run-store.ts'
import { ownedBy } from './postgres-clock.ts'

/**
 * Skips duplicates and events of unknown runs; a run's `done` ends its row in
 * the same statement (a follower on another server that has read `done`
 * never reads the run as still running); followers are notified at commit,
 * each run on its own channel (runChannel): only the servers following that
 * run are woken, never every server for every batch.
 * Columns as arrays: one statement text for any batch size, so it is
 * prepared once per connection.
 *
 * Written as `writer`, only the runs it owns are written (fencing.ts): their
 * rows are locked (FOR SHARE) while judged, so a sweep ending one of them
 * commits wholly before or after this write, and a run found ended is
 * re-read as ended. Returns the runs refused: those with an event not
 * stored already, the same.
 */
export async function appendEvents(
  sql: Sql | TransactionSql,
  events: readonly AgentEvent[],
  writer?: RunOwner,
): Promise<string[]> {
  if (events.length === 0) return []
  const ended = events.flatMap((event) =>
    event.type === 'done' ? [{ runId: event.runId, outcome: outcomeOf(event) }] : [],
  )
  const column = <T>(value: (end: (typeof ended)[number]) => T) => ended.map(value)
  const fence = writer ? sql`AND status = 'running' AND ${ownedBy(sql, writer)}` : sql``
  const [answer] = await sql<{ refused: string[] }[]>`WITH input AS (
      SELECT * FROM unnest(${events.map((event) => event.runId)}::text[], ${events.map((event) => event.seq)}::int[],
        ${events.map((event) => event.type)}::text[], ${events.map((event) => JSON.stringify(event))}::text[],
        ${events.map((event) => runChannel(event.runId))}::text[])
        AS b (run_id, seq, type, data, channel)
    ), owned AS (
      SELECT id FROM runs WHERE id IN (SELECT run_id FROM input) ${fence} FOR SHARE
    ), batch AS (
      SELECT * FROM input WHERE run_id IN (SELECT id FROM owned)
    ), refused AS (
      SELECT DISTINCT i.run_id FROM input i WHERE i.run_id NOT IN (SELECT id FROM owned)
        AND EXISTS (SELECT 1 FROM runs WHERE runs.id = i.run_id)
        AND NOT EXISTS (SELECT 1 FROM events e WHERE e.run_id = i.run_id AND e.seq = i.seq AND e.data = i.data)
    ), stored AS (
      INSERT INTO events (run_id, seq, type, data) SELECT run_id, seq, type, data FROM batch ON CONFLICT DO NOTHING
    ), ended AS (
      UPDATE runs SET status = o.status, reason = o.reason, result = o.result, input_tokens = o.input_tokens,
        output_tokens = o.output_tokens, total_tokens = o.total_tokens, cached_input_tokens = o.cached_input_tokens,
        cost_usd = o.cost_usd, steps = o.steps, finished_at = o.finished_at
      FROM unnest(${column((end) => end.runId)}::text[],
        ${column((end) => statusForReason(end.outcome.reason))}::text[], ${column((end) => end.outcome.reason)}::text[],
        ${column((end) => JSON.stringify(end.outcome.result))}::text[],
        ${column((end) => String(end.outcome.usage.inputTokens))}::bigint[],
        ${column((end) => String(end.outcome.usage.outputTokens))}::bigint[],
        ${column((end) => String(end.outcome.usage.totalTokens))}::bigint[],
        ${column((end) => nullable(end.outcome.usage.cachedInputTokens))}::bigint[],
        ${column((end) => nullable(end.outcome.costUsd))}::float8[], ${column((end) => end.outcome.steps)}::int[],
        ${column((end) => end.outcome.finishedAt)}::text[])
        AS o (id, status, reason, result, input_tokens, output_tokens, total_tokens, cached_input_tokens, cost_usd,
          steps, finished_at)
      WHERE runs.id = o.id AND runs.id IN (SELECT id FROM owned)
    ), told AS (
      SELECT pg_notify(channel, max(seq)::text) FROM batch GROUP BY run_id, channel
    )
    SELECT (SELECT count(*) FROM told) AS told, ARRAY(SELECT run_id FROM refused) AS refused`
  return answer?.refused ?? []
}

/**
 * The channel a run's new events are told on: `sextant_run_<id>`, LISTENed by
 * a server only while someone there follows the run. A channel is an
 * identifier of at most 63 bytes: a longer id is named by its hash.
 */
export function runChannel(runId: string): string {
  const channel = `sextant_run_${runId}`
  if (Buffer.byteLength(channel) <= 63) return channel
  return `sextant_run_h${createHash('sha256').update(runId).digest('hex').slice(0, 40)}`
}

/** A number for a bigint or float column, as text; SQL NULL when unknown. */
function nullable(value: number | null | undefined): string | null {
  return value == null ? null : String(value)
}
