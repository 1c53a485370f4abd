import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { DatabaseSync, type StatementSync } from 'node:sqlite'
import type { AgentEvent } from '../events/events.ts'
import { decodeCursor, encodeCursor } from './cursor.ts'
import { type FencedRun, fenceBatch, mayFinish, throwIfRefused } from './fencing.ts'
import { endInterruptedRuns } from './interrupted.ts'
import { type RunOwner, silentSince, thisProcess } from './owner.ts'
import { SqliteProfileRows } from './profiles/sqlite-profile-rows.ts'
import { runColumns, toRun } from './run-row.ts'
import {
  type ListRunsOptions,
  type MarkInterruptedOptions,
  type NewRun,
  pageSize,
  type RunOutcome,
  type RunPage,
  type RunStatus,
  type RunStore,
  type StoredRun,
  statusForReason,
} from './run-store.ts'
import { versionsOf } from './sql-schema.ts'
import { SqliteWebhookRows } from './webhooks/sqlite-webhook-rows.ts'

/** SQLite's schema versions (PRAGMA user_version), written once for both stores in sql-schema.ts. */
const versions = versionsOf('sqlite')
const schemaVersion = versions.at(-1)?.version ?? 0

/**
 * Runs and events in SQLite through node:sqlite. WAL mode lets a `serve`
 * process and `sextant runs` read while another process writes; events are
 * written in one transaction per batch.
 */
export class SqliteRunStore implements RunStore {
  readonly #db: DatabaseSync
  readonly #statements: ReturnType<typeof prepareStatements>
  readonly profiles: SqliteProfileRows
  readonly webhooks: SqliteWebhookRows

  /** `busyTimeoutMs`: how long a write waits for another process's lock before it fails (and is retried). */
  constructor(path: string, options: { busyTimeoutMs?: number } = {}) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
    this.#db = new DatabaseSync(path, {
      timeout: options.busyTimeoutMs ?? 5000,
      enableForeignKeyConstraints: true,
    })
    this.#db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;')
    migrate(this.#db, path)
    this.#statements = prepareStatements(this.#db)
    this.profiles = new SqliteProfileRows(this.#db)
    this.webhooks = new SqliteWebhookRows(this.#db)
  }

  async createRun(run: NewRun): Promise<void> {
    this.#statements.insertRun.run(
      run.id,
      run.task,
      run.model,
      run.startUrl ?? null,
      run.createdAt,
      run.owner.pid,
      run.owner.host,
      run.owner.id,
      run.createdAt,
      run.parentRunId ?? null,
      run.webhook ?? null,
    )
  }

  async heartbeat(owner: RunOwner, at: Date): Promise<string[]> {
    return this.#statements.heartbeat
      .all(at.toISOString(), owner.pid, owner.host, owner.id)
      .map((row) => String(row.id))
  }

  async appendEvents(events: readonly AgentEvent[], writer?: RunOwner): Promise<void> {
    if (!writer) return this.#append(events)
    let refused: string[] = []
    // Judged and written in one transaction: a sweep by another process ends the run before or after, never between.
    this.#transaction(() => {
      const fenced = fenceBatch(
        events,
        writer,
        (runId) => this.#fenced(runId),
        (event, data) => this.#statements.storedEvent.get(event.runId, event.seq)?.data === data,
      )
      this.#append(fenced.write)
      refused = fenced.refused
    })
    throwIfRefused(refused)
  }

  #fenced(runId: string): (FencedRun & { reason?: string; finishedAt?: string }) | undefined {
    const row = this.#statements.fence.get(runId)
    if (!row) return undefined
    return {
      status: String(row.status) as RunStatus,
      ...(row.reason == null ? {} : { reason: String(row.reason) }),
      ...(row.finished_at == null ? {} : { finishedAt: String(row.finished_at) }),
      // Runs of schema 1 recorded no host: their owner ran on this one.
      owner: {
        pid: Number(row.owner_pid),
        host: row.owner_host == null ? thisProcess().host : String(row.owner_host),
        id: row.owner_id == null ? '' : String(row.owner_id),
      },
    }
  }

  #append(events: readonly AgentEvent[]): void {
    if (events.length === 0) return
    // Events of unknown runs are skipped, like duplicates, rather than failing the whole batch
    // on the foreign key. Checked once per run in the batch, not once per event.
    const known = new Map<string, boolean>()
    const exists = (runId: string) => {
      let found = known.get(runId)
      if (found === undefined) {
        found = this.#statements.runExists.get(runId) !== undefined
        known.set(runId, found)
      }
      return found
    }
    this.#transaction(() => {
      for (const event of events) {
        if (!exists(event.runId)) continue
        this.#statements.insertEvent.run(event.runId, event.seq, event.type, JSON.stringify(event))
      }
    })
  }

  async finishRun(runId: string, outcome: RunOutcome, writer?: RunOwner): Promise<void> {
    if (!writer) return this.#finish(runId, outcome)
    let refused = false
    this.#transaction(() => {
      const run = this.#fenced(runId)
      refused = run !== undefined && !mayFinish(run, writer, outcome)
      if (!refused) this.#finish(runId, outcome)
    })
    throwIfRefused(refused ? [runId] : [])
  }

  #finish(runId: string, outcome: RunOutcome): void {
    this.#statements.finishRun.run(
      statusForReason(outcome.reason),
      outcome.reason,
      JSON.stringify(outcome.result),
      outcome.usage.inputTokens,
      outcome.usage.outputTokens,
      outcome.usage.totalTokens,
      outcome.usage.cachedInputTokens ?? null,
      outcome.costUsd ?? null,
      outcome.steps,
      outcome.finishedAt,
      runId,
    )
  }

  async getRun(runId: string): Promise<StoredRun | undefined> {
    const row = this.#statements.getRun.get(runId)
    return row ? toRun(row) : undefined
  }

  async listRuns(options: ListRunsOptions = {}): Promise<RunPage> {
    const limit = pageSize(options.limit)
    const rows =
      options.cursor === undefined
        ? this.#statements.firstPage.all(limit + 1)
        : (() => {
            const after = decodeCursor(options.cursor)
            return this.#statements.nextPage.all(after.createdAt, after.createdAt, after.id, limit + 1)
          })()
    const runs = rows.slice(0, limit).map(toRun)
    const last = runs.at(-1)
    return rows.length > limit && last ? { runs, nextCursor: encodeCursor(last) } : { runs }
  }

  async childRuns(runId: string): Promise<StoredRun[]> {
    return this.#statements.childRuns.all(runId).map(toRun)
  }

  async events(runId: string, afterSeq = -1): Promise<AgentEvent[]> {
    // Read in full: a statement iterated lazily would be reset by a second reader of the same statement.
    return this.#statements.events
      .all(runId, afterSeq)
      .map((row) => JSON.parse(String(row.data)) as AgentEvent)
  }

  async deleteFinishedRuns(options: { finishedBefore: string }): Promise<string[]> {
    const ids: string[] = []
    this.#transaction(() => {
      for (const row of this.#statements.finishedBefore.all(options.finishedBefore)) {
        const id = String(row.id)
        // Events explicitly: the cascade holds only with foreign keys on (node:sqlite's default, not every tool's).
        this.#statements.deleteEvents.run(id)
        this.webhooks.forget(id)
        this.#statements.deleteRun.run(id)
        ids.push(id)
      }
    })
    return ids
  }

  /** One host, one clock: the lease is judged on this process's, which wrote it. */
  async markInterruptedRuns(options: MarkInterruptedOptions): Promise<string[]> {
    const here = thisProcess().host
    const running = this.#statements.runningRuns.all().map((row) => {
      const seenAt = String(row.owner_seen_at ?? row.created_at)
      return {
        id: String(row.id),
        owner: {
          pid: Number(row.owner_pid),
          host: row.owner_host == null ? here : String(row.owner_host),
          id: row.owner_id == null ? '' : String(row.owner_id),
          seenAt,
          silentMs: silentSince(seenAt, options.at),
        },
        createdAt: String(row.created_at),
      }
    })
    return endInterruptedRuns(options, running, async (run, ending) => {
      const tail = this.#statements.eventTail.get(run.id)
      const { outcome, done } = ending({
        lastSeq: tail?.last_seq == null ? -1 : Number(tail.last_seq),
        steps: Number(tail?.steps ?? 0),
        createdAt: run.createdAt,
      })
      this.#transaction(() => {
        this.#append([done])
        this.#finish(run.id, outcome)
      })
      return true
    })
  }

  async close(): Promise<void> {
    if (this.#db.isOpen) this.#db.close()
  }

  #transaction(work: () => void): void {
    if (this.#db.isTransaction) {
      work()
      return
    }
    this.#db.exec('BEGIN')
    try {
      work()
      this.#db.exec('COMMIT')
    } catch (error) {
      this.#db.exec('ROLLBACK')
      throw error
    }
  }
}

function prepareStatements(db: DatabaseSync) {
  const columns = runColumns
  const statements = {
    insertRun: db.prepare(
      `INSERT INTO runs (id, task, model, start_url, status, created_at, owner_pid, owner_host, owner_id, owner_seen_at,
       parent_run_id, webhook)
       VALUES (?, ?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?)`,
    ),
    insertEvent: db.prepare('INSERT OR IGNORE INTO events (run_id, seq, type, data) VALUES (?, ?, ?, ?)'),
    runExists: db.prepare('SELECT 1 AS found FROM runs WHERE id = ?'),
    finishRun: db.prepare(
      `UPDATE runs SET status = ?, reason = ?, result = ?, input_tokens = ?, output_tokens = ?, total_tokens = ?,
       cached_input_tokens = ?, cost_usd = ?, steps = ?, finished_at = ? WHERE id = ?`,
    ),
    getRun: db.prepare(`SELECT ${columns} FROM runs WHERE id = ?`),
    firstPage: db.prepare(`SELECT ${columns} FROM runs ORDER BY created_at DESC, id DESC LIMIT ?`),
    nextPage: db.prepare(
      `SELECT ${columns} FROM runs WHERE created_at < ? OR (created_at = ? AND id < ?)
       ORDER BY created_at DESC, id DESC LIMIT ?`,
    ),
    childRuns: db.prepare(`SELECT ${columns} FROM runs WHERE parent_run_id = ? ORDER BY created_at, id`),
    events: db.prepare('SELECT data FROM events WHERE run_id = ? AND seq > ? ORDER BY seq'),
    heartbeat: db.prepare(
      `UPDATE runs SET owner_seen_at = ? WHERE status = 'running' AND owner_pid = ? AND owner_host = ? AND owner_id = ?
       RETURNING id`,
    ),
    fence: db.prepare(
      'SELECT status, reason, finished_at, owner_pid, owner_host, owner_id FROM runs WHERE id = ?',
    ),
    storedEvent: db.prepare('SELECT data FROM events WHERE run_id = ? AND seq = ?'),
    runningRuns: db.prepare(
      `SELECT id, created_at, owner_pid, owner_host, owner_id, owner_seen_at FROM runs WHERE status = 'running'`,
    ),
    finishedBefore: db.prepare(
      `SELECT id FROM runs WHERE status != 'running' AND finished_at IS NOT NULL AND finished_at < ?`,
    ),
    deleteEvents: db.prepare('DELETE FROM events WHERE run_id = ?'),
    deleteRun: db.prepare('DELETE FROM runs WHERE id = ?'),
    eventTail: db.prepare(
      `SELECT MAX(seq) AS last_seq,
       COALESCE(MAX(CASE WHEN type = 'step_started' THEN json_extract(data, '$.step') END), 0) AS steps
       FROM events WHERE run_id = ?`,
    ),
  } satisfies Record<string, StatementSync>
  return statements
}

/**
 * Brings the database to the newest schema version. Under a write lock taken
 * before the version is read: two processes opening the same new file at once
 * would otherwise both add the same columns.
 */
function migrate(db: DatabaseSync, path: string): void {
  const versionNow = () => Number(db.prepare('PRAGMA user_version').get()?.user_version ?? 0)
  // Up to date: opened without taking the write lock, as a reader beside a writing server.
  if (versionNow() === schemaVersion) return
  db.exec('BEGIN IMMEDIATE')
  try {
    const version = versionNow()
    if (version > schemaVersion) {
      throw new Error(`The database ${path} was written by a newer Sextant (schema ${version}).`)
    }
    // The first version only creates what is missing, so it is applied again: a database that lacks
    // one of its tables or indexes gains it, as every opening of an older Sextant ensured.
    for (const [index, step] of versions.entries())
      if (index === 0 || step.version > version) db.exec(step.sql)
    db.exec(`PRAGMA user_version = ${schemaVersion}`)
    db.exec('COMMIT')
  } catch (error) {
    db.exec('ROLLBACK')
    throw error
  }
}
