import type { AgentEvent, DoneReason, RunResult, Usage } from '../events/events.ts'
import type { RecordedOwner, RunOwner } from './owner.ts'

/** What a run is doing, or how it ended: derived from its DoneReason. */
export type RunStatus = 'running' | 'completed' | 'stopped' | 'failed'

/** A run as stored and as the API shows it. */
export interface StoredRun {
  id: string
  status: RunStatus
  task: string
  model: string
  startUrl?: string
  /** Set on a sub-agent's run: the run that dispatched it. */
  parentRunId?: string
  reason?: DoneReason
  result?: RunResult
  usage: Usage
  /** USD, once the run ended: null when the model's price is unknown. */
  costUsd?: number | null
  steps: number
  createdAt: string
  finishedAt?: string
}

export interface NewRun {
  id: string
  task: string
  model: string
  startUrl?: string
  /** A sub-agent's run: the run that dispatched it. */
  parentRunId?: string
  createdAt: string
  /** The process running it: a run whose owner is gone was interrupted. */
  owner: RunOwner
}

export interface RunOutcome {
  reason: DoneReason
  result: RunResult
  usage: Usage
  /** USD; null (or absent) when unknown. */
  costUsd?: number | null
  steps: number
  finishedAt: string
}

export interface ListRunsOptions {
  /** 1–100; default 20. */
  limit?: number
  /** `nextCursor` of the previous page. */
  cursor?: string
}

export interface RunPage {
  runs: StoredRun[]
  /** Present when more runs follow. */
  nextCursor?: string
}

/**
 * Runs and every one of their events. Synchronous: both implementations answer
 * from memory or an embedded database in microseconds, and callers batch
 * event writes per tick (EventWriter) so the stream never waits on a write.
 */
export interface RunStore {
  createRun(run: NewRun): void
  /**
   * Appends events of any runs in one transaction. An event already stored (same
   * run and seq) or of an unknown run is skipped.
   */
  appendEvents(events: readonly AgentEvent[]): void
  finishRun(runId: string, outcome: RunOutcome): void
  getRun(runId: string): StoredRun | undefined
  /** Newest first. */
  listRuns(options?: ListRunsOptions): RunPage
  /** The runs `runId` dispatched (its sub-agents), oldest first. */
  childRuns(runId: string): StoredRun[]
  /** The run's events in seq order, those after `afterSeq` when given. */
  events(runId: string, afterSeq?: number): Iterable<AgentEvent>
  /**
   * Deletes the runs that finished before `finishedBefore` (an ISO time), with
   * their events, in one transaction; running runs are never deleted. Returns
   * the ids deleted, so their files can go too.
   */
  deleteFinishedRuns(options: { finishedBefore: string }): string[]
  /** Renews the lease of `owner`'s running runs: it is alive at `at`. */
  heartbeat(owner: RunOwner, at: Date): void
  /**
   * Marks runs still `running` whose owner is gone as failed (reason error)
   * and appends their final `done` event, so every stored run ends. Returns
   * the ids marked.
   */
  markInterruptedRuns(options: { at: Date; isOwnerGone: (owner: RecordedOwner) => boolean }): string[]
  close(): void
}

export function statusForReason(reason: DoneReason | undefined): RunStatus {
  switch (reason) {
    case undefined:
      return 'running'
    case 'model_stop':
      return 'completed'
    case 'user_abort':
      return 'stopped'
    default:
      return 'failed'
  }
}

export const defaultPageSize = 20
export const maxPageSize = 100

export function pageSize(limit: number | undefined): number {
  if (limit === undefined) return defaultPageSize
  return Math.min(maxPageSize, Math.max(1, Math.floor(limit)))
}
