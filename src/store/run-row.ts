import { DoneReasonSchema } from '../events/events.ts'
import type { RunStatus, StoredRun } from './run-store.ts'

/** The columns of a run's row, as both SQL stores name them. */
export const runColumns =
  'id, task, model, start_url, parent_run_id, status, reason, result, input_tokens, output_tokens, total_tokens, cached_input_tokens, cost_usd, steps, created_at, finished_at'

/** A run's row (SQLite or PostgreSQL) as the API shows it. */
export function toRun(row: Record<string, unknown>): StoredRun {
  const reason = row.reason == null ? undefined : DoneReasonSchema.parse(row.reason)
  return {
    id: String(row.id),
    status: String(row.status) as RunStatus,
    task: String(row.task),
    model: String(row.model),
    ...(row.start_url == null ? {} : { startUrl: String(row.start_url) }),
    ...(row.parent_run_id == null ? {} : { parentRunId: String(row.parent_run_id) }),
    ...(reason === undefined ? {} : { reason }),
    ...(row.result == null ? {} : { result: JSON.parse(String(row.result)) }),
    usage: {
      inputTokens: Number(row.input_tokens),
      outputTokens: Number(row.output_tokens),
      totalTokens: Number(row.total_tokens),
      ...(row.cached_input_tokens == null ? {} : { cachedInputTokens: Number(row.cached_input_tokens) }),
    },
    // A cost is known or unknown (null) once the run ended; a queued or running run has none yet.
    ...(row.finished_at == null ? {} : { costUsd: row.cost_usd == null ? null : Number(row.cost_usd) }),
    steps: Number(row.steps),
    createdAt: String(row.created_at),
    ...(row.finished_at == null ? {} : { finishedAt: String(row.finished_at) }),
  }
}
