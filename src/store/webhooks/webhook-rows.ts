import type { WebhookAttempt, WebhookType } from '../../webhooks/webhook-message.ts'

/** Where runs' webhooks are kept: the URL each run's request named, and every attempt at delivering one. */
export interface WebhookRows {
  /** The URL the run's request named to be told when it ends, whichever server ends it. */
  targetOf(runId: string): Promise<string | undefined>
  /** Records one attempt at delivering one of the run's webhooks; a second record of one attempt is ignored. */
  record(runId: string, attempt: WebhookAttempt): Promise<void>
  /** The run's attempts, oldest first. */
  attempts(runId: string): Promise<WebhookAttempt[]>
}

/** The columns of a webhook attempt's row, as both SQL stores name them, in insert order. */
export const webhookAttemptColumns =
  'run_id, webhook_id, attempt, type, at, status, error, duration_ms, delivered'

/** The values of an attempt's row, in webhookAttemptColumns' order. */
export function webhookAttemptValues(runId: string, attempt: WebhookAttempt): (string | number | null)[] {
  return [
    runId,
    attempt.id,
    attempt.attempt,
    attempt.type,
    attempt.at,
    attempt.status ?? null,
    attempt.error ?? null,
    Math.round(attempt.durationMs),
    attempt.delivered ? 1 : 0,
  ]
}

/** An attempt's row (SQLite or PostgreSQL) as the API shows it. */
export function toWebhookAttempt(row: Record<string, unknown>): WebhookAttempt {
  return {
    id: String(row.webhook_id),
    type: String(row.type) as WebhookType,
    attempt: Number(row.attempt),
    at: String(row.at),
    ...(row.status == null ? {} : { status: Number(row.status) }),
    ...(row.error == null ? {} : { error: String(row.error) }),
    durationMs: Number(row.duration_ms),
    delivered: Number(row.delivered) === 1,
  }
}

/** Webhooks of the in-memory store. */
export class MemoryWebhookRows implements WebhookRows {
  readonly #targets = new Map<string, string>()
  readonly #attempts = new Map<string, WebhookAttempt[]>()

  /** Kept as the run is created (see MemoryRunStore.createRun). */
  setTarget(runId: string, url: string): void {
    this.#targets.set(runId, url)
  }

  /** The run is gone: its webhook and attempts go with it. */
  forget(runId: string): void {
    this.#targets.delete(runId)
    this.#attempts.delete(runId)
  }

  async targetOf(runId: string): Promise<string | undefined> {
    return this.#targets.get(runId)
  }

  async record(runId: string, attempt: WebhookAttempt): Promise<void> {
    const list = this.#attempts.get(runId) ?? []
    if (list.some((seen) => seen.id === attempt.id && seen.attempt === attempt.attempt)) return
    this.#attempts.set(runId, [...list, { ...attempt }])
  }

  async attempts(runId: string): Promise<WebhookAttempt[]> {
    return (this.#attempts.get(runId) ?? []).map((attempt) => ({ ...attempt }))
  }
}
