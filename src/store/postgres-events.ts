import type { Sql, TransactionSql } from 'postgres'
import type { AgentEvent } from '../events/events.ts'
import { outcomeOf, statusForReason } from './run-store.ts'

/**
 * Skips duplicates and events of unknown runs; a run's `done` ends its row in
 * the same statement (a follower on another server that has read `done`
 * never reads the run as still running); followers are notified at commit.
 * Columns as arrays: one statement text for any batch size, so it is
 * prepared once per connection.
 */
export async function appendEvents(
  sql: Sql | TransactionSql,
  events: readonly AgentEvent[],
  channel: string,
): Promise<void> {
  if (events.length === 0) return
  const ended = events.flatMap((event) =>
    event.type === 'done' ? [{ runId: event.runId, outcome: outcomeOf(event) }] : [],
  )
  const column = <T>(value: (end: (typeof ended)[number]) => T) => ended.map(value)
  await sql`WITH batch AS (
      SELECT * FROM unnest(${events.map((event) => event.runId)}::text[], ${events.map((event) => event.seq)}::int[],
        ${events.map((event) => event.type)}::text[], ${events.map((event) => JSON.stringify(event))}::text[])
        AS b (run_id, seq, type, data)
      WHERE EXISTS (SELECT 1 FROM runs WHERE runs.id = b.run_id)
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
      WHERE runs.id = o.id
    )
    SELECT pg_notify(${channel}, json_build_array(run_id, max(seq))::text) FROM batch GROUP BY run_id`
}

/** A number for a bigint or float column, as text; SQL NULL when unknown. */
function nullable(value: number | null | undefined): string | null {
  return value == null ? null : String(value)
}
