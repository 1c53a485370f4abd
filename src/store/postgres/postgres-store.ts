import postgres, { type Sql, type TransactionSql } from 'postgres'
import type { AgentEvent } from '../../events/events.ts'
import { decodeCursor, encodeCursor } from '../cursor.ts'
import { throwIfRefused } from '../fencing.ts'
import { endInterruptedRuns, queueTimeoutEnding, withdrawnEnding } from '../interrupted.ts'
import type { RunOwner } from '../owner.ts'
import { PostgresProfileRows } from '../profiles/postgres-profile-rows.ts'
import { runColumns, toRun } from '../run-row.ts'
import {
  type ListRunsOptions,
  type MarkInterruptedOptions,
  type NewRun,
  pageSize,
  type RunOutcome,
  type RunPage,
  type StoredRun,
  statusForReason,
} from '../run-store.ts'
import type {
  AbortMessage,
  ClaimedRun,
  QueueTicket,
  ReplyMessage,
  SharedRunStore,
  SharedStoreHandlers,
} from '../shared.ts'
import { PostgresWebhookRows } from '../webhooks/postgres-webhook-rows.ts'
import { dbNow, msSince, ownedBy } from './postgres-clock.ts'
import { PostgresDownloads } from './postgres-downloads.ts'
import { appendEvents, runChannel } from './postgres-events.ts'
import { migrate } from './postgres-migrations.ts'
import { claimNext, placesInQueue, queueChannel, queueRoomTaken, queueSize } from './postgres-queue.ts'
import { type ControlNotice, messageOf, recordReply } from './postgres-replies.ts'
import { PostgresStepFiles } from './postgres-step-files.ts'

/** Channels between the servers sharing a database. */
const channels = { control: 'sextant_control', queue: queueChannel } as const

/**
 * Runs and events in PostgreSQL, shared by any number of servers. Writes that other servers wait for
 * (events, replies, the queue) send a NOTIFY in the same transaction, so it arrives exactly when the
 * rows are visible. The driver is porsager's `postgres`: no dependencies, no install scripts,
 * LISTEN/NOTIFY on a dedicated connection that it re-establishes itself.
 */
export class PostgresRunStore implements SharedRunStore {
  readonly shared = true
  readonly #sql: Sql
  readonly #ready: Promise<void>
  readonly profiles = new PostgresProfileRows(() => this.#db())
  readonly stepFiles = new PostgresStepFiles(() => this.#db())
  readonly downloads = new PostgresDownloads(() => this.#db())
  readonly artifacts = new PostgresDownloads(() => this.#db(), 'artifacts')
  readonly webhooks = new PostgresWebhookRows(() => this.#db())

  /** Connects lazily; the schema is migrated before the first query. */
  constructor(url: string, options: { maxConnections?: number } = {}) {
    this.#sql = postgres(url, { max: options.maxConnections ?? 10, onnotice: () => {} })
    this.#ready = migrate(this.#sql)
    // Reported by the first query that needs it; not an unhandled rejection meanwhile.
    this.#ready.catch(() => {})
  }

  /** Settles once the schema is migrated; rejects when the database cannot be reached. */
  ready(): Promise<void> {
    return this.#ready
  }

  async #db(): Promise<Sql> {
    await this.#ready
    return this.#sql
  }

  async createRun(run: NewRun): Promise<void> {
    await this.#insertRun(await this.#db(), run, 'running')
  }

  async #insertRun(sql: Sql | TransactionSql, run: NewRun, status: 'running' | 'queued'): Promise<void> {
    // Seen now on the database's clock, not at createdAt: the server's clock may be behind.
    await sql`INSERT INTO runs (id, task, model, start_url, status, created_at, owner_pid, owner_host, owner_id,
        owner_seen_at, parent_run_id, owner_url, webhook)
      VALUES (${run.id}, ${run.task}, ${run.model}, ${run.startUrl ?? null}, ${status}, ${run.createdAt},
        ${run.owner.pid}, ${run.owner.host}, ${run.owner.id}, ${dbNow(sql)}, ${run.parentRunId ?? null},
        ${run.owner.url ?? null}, ${run.webhook ?? null})`
  }

  /**
   * One statement, its own transaction (no BEGIN): the driver (postgres 3.4.9) crashes the process when a
   * transaction's connection dies before its ROLLBACK is sent (porsager/postgres#1154, #1208), which is
   * what a database restart does to the writer that retries through it.
   */
  async appendEvents(events: readonly AgentEvent[], writer?: RunOwner): Promise<void> {
    throwIfRefused(await appendEvents(await this.#db(), events, writer))
  }

  /** One statement: as `writer`, the row's lock decides against a sweep ending the run at the same time. */
  async finishRun(runId: string, outcome: RunOutcome, writer?: RunOwner): Promise<void> {
    const sql = await this.#db()
    if (await this.#finish(sql, runId, outcome, writer)) return
    const [exists] = await sql`SELECT 1 FROM runs WHERE id = ${runId}`
    if (exists) throwIfRefused([runId])
  }

  /** Whether the run's row was written: as `writer`, only while it owns it, or ended it so already (see mayFinish). */
  async #finish(
    sql: Sql | TransactionSql,
    runId: string,
    outcome: RunOutcome,
    writer?: RunOwner,
  ): Promise<boolean> {
    const fence = writer
      ? sql`AND ${ownedBy(sql, writer)}
          AND (status = 'running' OR (reason = ${outcome.reason} AND finished_at = ${outcome.finishedAt}))`
      : sql``
    const rows =
      await sql`UPDATE runs SET status = ${statusForReason(outcome.reason)}, reason = ${outcome.reason},
      result = ${JSON.stringify(outcome.result)}, input_tokens = ${outcome.usage.inputTokens},
      output_tokens = ${outcome.usage.outputTokens}, total_tokens = ${outcome.usage.totalTokens},
      cached_input_tokens = ${outcome.usage.cachedInputTokens ?? null}, cost_usd = ${outcome.costUsd ?? null},
      steps = ${outcome.steps}, finished_at = ${outcome.finishedAt} WHERE id = ${runId} ${fence} RETURNING id`
    return rows.length > 0
  }

  async getRun(runId: string): Promise<StoredRun | undefined> {
    const sql = await this.#db()
    const [row] = await sql.unsafe(`SELECT ${runColumns} FROM runs WHERE id = $1`, [runId])
    return row ? toRun(row) : undefined
  }

  async listRuns(options: ListRunsOptions = {}): Promise<RunPage> {
    const limit = pageSize(options.limit)
    const after = options.cursor === undefined ? undefined : decodeCursor(options.cursor)
    const sql = await this.#db()
    const rows =
      after === undefined
        ? await sql.unsafe(`SELECT ${runColumns} FROM runs ORDER BY created_at DESC, id DESC LIMIT $1`, [
            limit + 1,
          ])
        : await sql.unsafe(
            `SELECT ${runColumns} FROM runs WHERE (created_at, id) < ($1, $2)
             ORDER BY created_at DESC, id DESC LIMIT $3`,
            [after.createdAt, after.id, limit + 1],
          )
    const runs = rows.slice(0, limit).map((row) => toRun(row))
    const last = runs.at(-1)
    return rows.length > limit && last ? { runs, nextCursor: encodeCursor(last) } : { runs }
  }

  async childRuns(runId: string): Promise<StoredRun[]> {
    const sql = await this.#db()
    const rows = await sql.unsafe(
      `SELECT ${runColumns} FROM runs WHERE parent_run_id = $1 ORDER BY created_at, id`,
      [runId],
    )
    return rows.map((row) => toRun(row))
  }

  async events(runId: string, afterSeq = -1): Promise<AgentEvent[]> {
    const sql = await this.#db()
    const rows = await sql<{ data: string }[]>`SELECT data FROM events
      WHERE run_id = ${runId} AND seq > ${afterSeq} ORDER BY seq`
    return rows.map((row) => JSON.parse(row.data) as AgentEvent)
  }

  /** Queued runs have no finished_at, so only ended runs go; their events and replies go by cascade. */
  async deleteFinishedRuns(options: { finishedBefore: string }): Promise<string[]> {
    const sql = await this.#db()
    const rows = await sql<{ id: string }[]>`WITH gone AS (DELETE FROM runs
      WHERE status NOT IN ('running', 'queued') AND finished_at IS NOT NULL AND finished_at < ${options.finishedBefore}
      RETURNING id), files AS (DELETE FROM step_files WHERE run_id IN (SELECT id FROM gone)),
      downloaded AS (DELETE FROM downloads WHERE run_id IN (SELECT id FROM gone)),
      artifacts AS (DELETE FROM artifacts WHERE run_id IN (SELECT id FROM gone)) SELECT id FROM gone`
    return rows.map((row) => row.id)
  }

  /** On the database's clock: `at` is the server's, and says nothing here. */
  async heartbeat(owner: RunOwner, _at: Date): Promise<string[]> {
    const sql = await this.#db()
    const rows = await sql<{ id: string }[]>`UPDATE runs SET owner_seen_at = ${dbNow(sql)}
      WHERE status = 'running' AND ${ownedBy(sql, owner)} RETURNING id`
    return rows.map((row) => row.id)
  }

  /**
   * Each run is locked while it is judged and ended, and runs another server
   * is ending are skipped: two servers sweeping at once end a run once.
   */
  async markInterruptedRuns(options: MarkInterruptedOptions): Promise<string[]> {
    const sql = await this.#db()
    // How long each owner has been silent, on the database's clock: every server judges alike.
    const rows = await sql<
      {
        id: string
        owner_pid: number
        owner_host: string
        owner_id: string | null
        owner_seen_at: string
        silent_ms: number
      }[]
    >`SELECT id, owner_pid, owner_host, owner_id, owner_seen_at, ${msSince(sql, 'owner_seen_at')} AS silent_ms
      FROM runs WHERE status = 'running'`
    const running = rows.map((row) => ({
      id: row.id,
      owner: {
        pid: row.owner_pid,
        host: row.owner_host,
        id: row.owner_id ?? '',
        seenAt: row.owner_seen_at,
        silentMs: row.silent_ms,
      },
    }))
    return endInterruptedRuns(options, running, (run, ending) =>
      sql.begin(async (tx) => {
        const [row] = await tx<
          { created_at: string; owner_seen_at: string }[]
        >`SELECT created_at, owner_seen_at
          FROM runs WHERE id = ${run.id} AND status = 'running' FOR UPDATE SKIP LOCKED`
        // Ended meanwhile, being ended by another server, or its owner beat again: not ours to end.
        if (!row || row.owner_seen_at !== run.owner.seenAt) return false
        const [tail] = await tx<{ last_seq: number | null; steps: number }[]>`SELECT max(seq) AS last_seq,
          coalesce(max(CASE WHEN type = 'step_started' THEN (data::jsonb ->> 'step')::int END), 0) AS steps
          FROM events WHERE run_id = ${run.id}`
        const { outcome, done } = ending({
          lastSeq: tail?.last_seq ?? -1,
          steps: tail?.steps ?? 0,
          createdAt: row.created_at,
        })
        await appendEvents(tx, [done])
        await this.#finish(tx, run.id, outcome)
        return true
      }),
    )
  }

  async listen(handlers: SharedStoreHandlers): Promise<void> {
    const sql = await this.#db()
    // Read one after another, so messages reach the handler in the order they were sent.
    let heard = Promise.resolve()
    await sql.listen(channels.control, (payload) => {
      const notice = JSON.parse(payload) as ControlNotice
      heard = heard.then(async () => {
        const message = await messageOf(sql, notice)
        if (message) handlers.onControl(message)
      })
    })
    await sql.listen(channels.queue, () => handlers.onQueue())
  }

  async followEvents(runId: string, onEvents: (lastSeq: number) => void): Promise<() => Promise<void>> {
    const sql = await this.#db()
    // The driver listens once per channel however many follow it, and listens again after a reconnect.
    const { unlisten } = await sql.listen(runChannel(runId), (payload) => onEvents(Number(payload)))
    return async () => {
      await unlisten()
    }
  }

  async recordReply(message: ReplyMessage): Promise<boolean> {
    return recordReply(await this.#db(), message, channels.control)
  }

  async sendControl(message: AbortMessage): Promise<void> {
    const sql = await this.#db()
    const notice: ControlNotice = { kind: message.kind, runId: message.runId }
    await sql`SELECT pg_notify(${channels.control}, ${JSON.stringify(notice)})`
  }

  /**
   * Counted and inserted under one lock, so servers enqueueing at once never
   * let the queue grow past `max`; the wait is timed on the database's clock.
   */
  async enqueueRun(run: NewRun, request: unknown, ticket: QueueTicket = {}): Promise<boolean> {
    const sql = await this.#db()
    return sql.begin(async (tx) => {
      if (!(await queueRoomTaken(tx, ticket.max))) return false
      const timeoutMs = ticket.timeoutMs ?? null
      await this.#insertRun(tx, run, 'queued')
      await tx`INSERT INTO queue (run_id, request, priority, timeout_ms, expires_at)
        VALUES (${run.id}, ${JSON.stringify(request)}, ${ticket.priority ?? 0}, ${timeoutMs},
          now() + ${timeoutMs}::int * interval '1 millisecond')`
      await tx`SELECT pg_notify(${channels.queue}, '')`
      return true
    })
  }

  /** Highest priority first, first come within one; a run past its queue timeout is never claimed. */
  async claimQueuedRun(owner: RunOwner, _at: Date): Promise<ClaimedRun | undefined> {
    const sql = await this.#db()
    const claimed = await sql.begin((tx) => claimNext(tx, owner))
    if (!claimed) return undefined
    const run = await this.getRun(claimed.run_id)
    return run && { run, request: JSON.parse(claimed.request) as unknown }
  }

  /** Runs another server is claiming or ending are skipped: each expired run is ended once. */
  async expireQueuedRuns(at: Date): Promise<string[]> {
    const sql = await this.#db()
    return sql.begin(async (tx) => {
      const expired = await tx<{ run_id: string; timeout_ms: number; created_at: string }[]>`DELETE FROM queue
        USING runs WHERE queue.position IN (
          SELECT position FROM queue WHERE expires_at <= now() FOR UPDATE SKIP LOCKED
        ) AND runs.id = queue.run_id RETURNING queue.run_id, queue.timeout_ms, runs.created_at`
      for (const entry of expired) {
        const { outcome, done } = queueTimeoutEnding(entry.run_id, entry.created_at, at, entry.timeout_ms)
        await appendEvents(tx, [done])
        await this.#finish(tx, entry.run_id, outcome)
      }
      if (expired.length > 0) await tx`SELECT pg_notify(${channels.queue}, '')`
      return expired.map((entry) => entry.run_id)
    })
  }

  async withdrawQueuedRun(runId: string, at: Date): Promise<boolean> {
    const sql = await this.#db()
    return sql.begin(async (tx) => {
      const [entry] = await tx<{ created_at: string }[]>`DELETE FROM queue USING runs
        WHERE queue.run_id = ${runId} AND runs.id = queue.run_id RETURNING runs.created_at`
      if (!entry) return false
      // The runs behind it moved up one place.
      await tx`SELECT pg_notify(${channels.queue}, '')`
      const { outcome, done } = withdrawnEnding(runId, entry.created_at, at)
      await appendEvents(tx, [done])
      await this.#finish(tx, runId, outcome)
      return true
    })
  }

  async queuePositions(runIds: readonly string[]): Promise<Map<string, number>> {
    return placesInQueue(await this.#db(), runIds)
  }

  async ownerUrl(runId: string): Promise<string | undefined> {
    const sql = await this.#db()
    const [row] = await sql<{ owner_url: string | null }[]>`SELECT owner_url FROM runs
      WHERE id = ${runId} AND status = 'running'`
    return row?.owner_url ?? undefined
  }

  async queueDepth(): Promise<number> {
    return queueSize(await this.#db())
  }

  async close(): Promise<void> {
    await this.#sql.end({ timeout: 5 })
  }
}
