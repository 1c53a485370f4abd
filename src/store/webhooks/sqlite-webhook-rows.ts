import type { DatabaseSync } from 'node:sqlite'
import type { WebhookAttempt } from '../../webhooks/webhook-message.ts'
import {
  toWebhookAttempt,
  type WebhookRows,
  webhookAttemptColumns,
  webhookAttemptValues,
} from './webhook-rows.ts'

/** Webhooks in the SQLite store: the URL on the run's row, the attempts in their own table. */
export class SqliteWebhookRows implements WebhookRows {
  readonly #db: DatabaseSync

  constructor(db: DatabaseSync) {
    this.#db = db
  }

  async targetOf(runId: string): Promise<string | undefined> {
    const row = this.#db.prepare('SELECT webhook FROM runs WHERE id = ?').get(runId)
    return row?.webhook == null ? undefined : String(row.webhook)
  }

  async record(runId: string, attempt: WebhookAttempt): Promise<void> {
    this.#db
      .prepare(
        `INSERT OR IGNORE INTO webhook_attempts (${webhookAttemptColumns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(...webhookAttemptValues(runId, attempt))
  }

  async attempts(runId: string): Promise<WebhookAttempt[]> {
    return this.#db
      .prepare(`SELECT ${webhookAttemptColumns} FROM webhook_attempts WHERE run_id = ? ORDER BY at, attempt`)
      .all(runId)
      .map(toWebhookAttempt)
  }

  /** With the run (see SqliteRunStore.deleteFinishedRuns, which does not count on the cascade). */
  forget(runId: string): void {
    this.#db.prepare('DELETE FROM webhook_attempts WHERE run_id = ?').run(runId)
  }
}
