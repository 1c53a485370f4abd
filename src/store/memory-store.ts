import type { AgentEvent } from '../events/events.ts'
import { zeroUsage } from '../events/usage.ts'
import { decodeCursor, encodeCursor, isBefore } from './cursor.ts'
import { fenceBatch, isOwnedBy, mayFinish, throwIfRefused } from './fencing.ts'
import { endInterruptedRuns, stepsOf } from './interrupted.ts'
import { type RunOwner, silentSince } from './owner.ts'
import { MemoryProfileRows } from './profiles/memory-profile-rows.ts'
import {
  type ListRunsOptions,
  type MarkInterruptedOptions,
  type NewRun,
  pageSize,
  type RunOutcome,
  type RunPage,
  type RunStore,
  type StoredRun,
  statusForReason,
} from './run-store.ts'
import { MemoryWebhookRows } from './webhooks/webhook-rows.ts'

interface MemoryRun {
  run: StoredRun
  owner: RunOwner & { seenAt: string }
  /** Events by seq. */
  events: Map<number, AgentEvent>
}

/** Keeps runs in this process only: for tests, and for embedding without a database file. */
export class MemoryRunStore implements RunStore {
  readonly #runs = new Map<string, MemoryRun>()
  readonly profiles = new MemoryProfileRows()
  readonly webhooks = new MemoryWebhookRows()

  async createRun(run: NewRun): Promise<void> {
    if (this.#runs.has(run.id)) throw new Error(`Run ${run.id} already exists.`)
    this.#runs.set(run.id, {
      run: {
        id: run.id,
        status: 'running',
        task: run.task,
        model: run.model,
        ...(run.startUrl === undefined ? {} : { startUrl: run.startUrl }),
        ...(run.parentRunId === undefined ? {} : { parentRunId: run.parentRunId }),
        usage: { ...zeroUsage },
        steps: 0,
        createdAt: run.createdAt,
      },
      owner: { pid: run.owner.pid, host: run.owner.host, id: run.owner.id, seenAt: run.createdAt },
      events: new Map(),
    })
    if (run.webhook !== undefined) this.webhooks.setTarget(run.id, run.webhook)
  }

  async appendEvents(events: readonly AgentEvent[], writer?: RunOwner): Promise<void> {
    if (!writer) return this.#append(events)
    const { write, refused } = fenceBatch(
      events,
      writer,
      (runId) => this.#fenced(runId),
      (event, data) => {
        const stored = this.#runs.get(event.runId)?.events.get(event.seq)
        return stored !== undefined && JSON.stringify(stored) === data
      },
    )
    this.#append(write)
    throwIfRefused(refused)
  }

  #fenced(runId: string) {
    const entry = this.#runs.get(runId)
    return entry && { status: entry.run.status, owner: entry.owner }
  }

  #append(events: readonly AgentEvent[]): void {
    for (const event of events) {
      const entry = this.#runs.get(event.runId)
      if (!entry || entry.events.has(event.seq)) continue
      // Events are immutable values once stamped: kept as they are, not copied.
      entry.events.set(event.seq, event)
    }
  }

  async finishRun(runId: string, outcome: RunOutcome, writer?: RunOwner): Promise<void> {
    const entry = this.#runs.get(runId)
    if (writer && entry && !mayFinish({ ...entry.run, owner: entry.owner }, writer, outcome))
      throwIfRefused([runId])
    this.#finish(runId, outcome)
  }

  #finish(runId: string, outcome: RunOutcome): void {
    const entry = this.#runs.get(runId)
    if (!entry) return
    entry.run = {
      ...entry.run,
      status: statusForReason(outcome.reason),
      reason: outcome.reason,
      result: outcome.result,
      usage: outcome.usage,
      costUsd: outcome.costUsd ?? null,
      steps: outcome.steps,
      finishedAt: outcome.finishedAt,
    }
  }

  async getRun(runId: string): Promise<StoredRun | undefined> {
    const entry = this.#runs.get(runId)
    return entry ? structuredClone(entry.run) : undefined
  }

  async listRuns(options: ListRunsOptions = {}): Promise<RunPage> {
    const limit = pageSize(options.limit)
    const after = options.cursor === undefined ? undefined : decodeCursor(options.cursor)
    const sorted = [...this.#runs.values()]
      .map((entry) => entry.run)
      .filter((run) => after === undefined || isBefore(run, after))
      .sort((a, b) => (isBefore(a, b) ? 1 : -1))
    const runs = sorted.slice(0, limit).map((run) => structuredClone(run))
    const last = runs.at(-1)
    return sorted.length > limit && last ? { runs, nextCursor: encodeCursor(last) } : { runs }
  }

  async childRuns(runId: string): Promise<StoredRun[]> {
    return [...this.#runs.values()]
      .map((entry) => entry.run)
      .filter((run) => run.parentRunId === runId)
      .sort((a, b) => (isBefore(a, b) ? -1 : 1))
      .map((run) => structuredClone(run))
  }

  async events(runId: string, afterSeq = -1): Promise<AgentEvent[]> {
    const entry = this.#runs.get(runId)
    if (!entry) return []
    return [...entry.events.values()].filter((event) => event.seq > afterSeq).sort((a, b) => a.seq - b.seq)
  }

  async heartbeat(owner: RunOwner, at: Date): Promise<string[]> {
    const renewed: string[] = []
    for (const entry of this.#runs.values()) {
      if (!isOwnedBy({ status: entry.run.status, owner: entry.owner }, owner)) continue
      entry.owner = { ...entry.owner, seenAt: at.toISOString() }
      renewed.push(entry.run.id)
    }
    return renewed
  }

  async deleteFinishedRuns(options: { finishedBefore: string }): Promise<string[]> {
    const ids: string[] = []
    for (const [id, entry] of this.#runs) {
      const finishedAt = entry.run.finishedAt
      if (entry.run.status === 'running' || finishedAt === undefined || finishedAt >= options.finishedBefore)
        continue
      this.#runs.delete(id)
      this.webhooks.forget(id)
      ids.push(id)
    }
    return ids
  }

  async markInterruptedRuns(options: MarkInterruptedOptions): Promise<string[]> {
    const running = [...this.#runs.values()]
      .filter((entry) => entry.run.status === 'running')
      .map((entry) => ({
        id: entry.run.id,
        owner: { ...entry.owner, silentMs: silentSince(entry.owner.seenAt, options.at) },
      }))
    return endInterruptedRuns(options, running, async (run, ending) => {
      const entry = this.#runs.get(run.id)
      if (!entry) return false
      const { outcome, done } = ending({
        lastSeq: Math.max(-1, ...entry.events.keys()),
        steps: stepsOf(entry.events.values()),
        createdAt: entry.run.createdAt,
      })
      this.#append([done])
      this.#finish(run.id, outcome)
      return true
    })
  }

  async close(): Promise<void> {}
}
