import type { AgentEvent } from '../events/events.ts'
import { zeroUsage } from '../events/usage.ts'
import { decodeCursor, encodeCursor, isBefore } from './cursor.ts'
import { interruptedEnding, stepsOf } from './interrupted.ts'
import type { RecordedOwner, RunOwner } from './owner.ts'
import {
  type ListRunsOptions,
  type NewRun,
  pageSize,
  type RunOutcome,
  type RunPage,
  type RunStore,
  type StoredRun,
  statusForReason,
} from './types.ts'

interface MemoryRun {
  run: StoredRun
  owner: RecordedOwner
  /** Events by seq. */
  events: Map<number, AgentEvent>
}

/** Keeps runs in this process only: for tests, and for embedding without a database file. */
export class MemoryRunStore implements RunStore {
  readonly #runs = new Map<string, MemoryRun>()

  createRun(run: NewRun): void {
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
      owner: { ...run.owner, seenAt: run.createdAt },
      events: new Map(),
    })
  }

  appendEvents(events: readonly AgentEvent[]): void {
    for (const event of events) {
      const entry = this.#runs.get(event.runId)
      if (!entry || entry.events.has(event.seq)) continue
      // Events are immutable values once stamped: kept as they are, not copied.
      entry.events.set(event.seq, event)
    }
  }

  finishRun(runId: string, outcome: RunOutcome): void {
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

  getRun(runId: string): StoredRun | undefined {
    const entry = this.#runs.get(runId)
    return entry ? structuredClone(entry.run) : undefined
  }

  listRuns(options: ListRunsOptions = {}): RunPage {
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

  childRuns(runId: string): StoredRun[] {
    return [...this.#runs.values()]
      .map((entry) => entry.run)
      .filter((run) => run.parentRunId === runId)
      .sort((a, b) => (isBefore(a, b) ? -1 : 1))
      .map((run) => structuredClone(run))
  }

  *events(runId: string, afterSeq = -1): Iterable<AgentEvent> {
    const entry = this.#runs.get(runId)
    if (!entry) return
    const seqs = [...entry.events.keys()].filter((seq) => seq > afterSeq).sort((a, b) => a - b)
    for (const seq of seqs) yield entry.events.get(seq)!
  }

  heartbeat(owner: RunOwner, at: Date): void {
    for (const entry of this.#runs.values()) {
      const { pid, host } = entry.owner
      if (entry.run.status === 'running' && pid === owner.pid && host === owner.host) {
        entry.owner = { ...entry.owner, seenAt: at.toISOString() }
      }
    }
  }

  deleteFinishedRuns(options: { finishedBefore: string }): string[] {
    const ids: string[] = []
    for (const [id, entry] of this.#runs) {
      const finishedAt = entry.run.finishedAt
      if (entry.run.status === 'running' || finishedAt === undefined || finishedAt >= options.finishedBefore)
        continue
      this.#runs.delete(id)
      ids.push(id)
    }
    return ids
  }

  markInterruptedRuns(options: { at: Date; isOwnerGone: (owner: RecordedOwner) => boolean }): string[] {
    const marked: string[] = []
    for (const entry of this.#runs.values()) {
      if (entry.run.status !== 'running' || !options.isOwnerGone(entry.owner)) continue
      const lastSeq = Math.max(-1, ...entry.events.keys())
      const { outcome, done } = interruptedEnding(
        entry.run.id,
        lastSeq,
        stepsOf(entry.events.values()),
        entry.run.createdAt,
        options.at,
      )
      this.appendEvents([done])
      this.finishRun(entry.run.id, outcome)
      marked.push(entry.run.id)
    }
    return marked
  }

  close(): void {}
}
