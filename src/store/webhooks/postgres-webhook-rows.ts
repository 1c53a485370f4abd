import type { Sql } from 'postgres'
import type { WebhookAttempt } from '../../webhooks/webhook-message.ts'
import {
  toWebhookAttempt,
  type WebhookRows,
  webhookAttemptColumns,
  webhookAttemptValues,
} from './webhook-rows.ts'

/** Webhooks in the PostgreSQL store, read by every server: the one that ends a run delivers its webhook. */
export class PostgresWebhookRows implements WebhookRows {
  readonly #db: () => Promise<Sql>

  constructor(db: () => Promise<Sql>) {
    this.#db = db
  }

  async targetOf(runId: string): Promise<string | undefined> {
    const sql = await this.#db()
    const [row] = await sql<{ webhook: string | null }[]>`SELECT webhook FROM runs WHERE id = ${runId}`
    return row?.webhook ?? undefined
  }

  async record(runId: string, attempt: WebhookAttempt): Promise<void> {
    const sql = await this.#db()
    await sql.unsafe(
      `INSERT INTO webhook_attempts (${webhookAttemptColumns}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT DO NOTHING`,
      webhookAttemptValues(runId, attempt),
    )
  }

  async attempts(runId: string): Promise<WebhookAttempt[]> {
    const sql = await this.#db()
    const rows = await sql.unsafe(
      `SELECT ${webhookAttemptColumns} FROM webhook_attempts WHERE run_id = $1 ORDER BY at, attempt`,
      [runId],
    )
    return rows.map(toWebhookAttempt)
  }
}
