import type { AgentEvent, AgentEventOf, DoneReason, RunResult, Usage } from '../events/events.ts'
import { type RunStatus, runStatuses, statusForReason } from '../events/run-status.ts'
import type { RecordedOwner, RunOwner } from './owner.ts'
import type { ProfileRows } from './profiles/profile-rows.ts'
import type { WebhookRows } from './webhooks/webhook-rows.ts'

// The run's status is the events' fact (webhooks and the agent read it too); the store re-exports it.
export { type RunStatus, runStatuses, statusForReason }

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
  /** The URL told when the run ends (its request's `webhook`). */
  webhook?: string
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

/** How a store sweeps the runs whose process died (markInterruptedRuns). */
export interface MarkInterruptedOptions {
  /** When the sweep runs, on this process's clock: the ended runs' `done` time (never a lease's judge). */
  at: Date
  /** Judged with the owner's silence on the store's clock (RecordedOwner.silentMs). */
  isOwnerGone: (owner: RecordedOwner) => boolean
}

/**
 * Runs and every one of their events. Asynchronous, because the shared store
 * (PostgreSQL) answers over the network; the embedded ones (memory, SQLite)
 * answer at once. Callers batch event writes per tick (EventWriter) so the
 * stream never waits on a write.
 */
export interface RunStore {
  /** Saved browser states, sealed (see ProfileStore, which seals and merges them). */
  readonly profiles: ProfileRows
  /** Runs' webhooks: where each is told of its end, and every attempt at telling it. */
  readonly webhooks: WebhookRows
  createRun(run: NewRun): Promise<void>
  /**
   * Appends events of any runs in one transaction. An event already stored (same
   * run and seq) or of an unknown run is skipped. Written as `writer` (a
   * server's own runs), events of runs it no longer owns are refused (see
   * fencing.ts): the others are written, then RunFencedError names those runs.
   */
  appendEvents(events: readonly AgentEvent[], writer?: RunOwner): Promise<void>
  /** As `writer`: refused (RunFencedError) unless it still owns the run, or ended it so already. */
  finishRun(runId: string, outcome: RunOutcome, writer?: RunOwner): Promise<void>
  getRun(runId: string): Promise<StoredRun | undefined>
  /** Newest first. */
  listRuns(options?: ListRunsOptions): Promise<RunPage>
  /** The runs `runId` dispatched (its sub-agents), oldest first. */
  childRuns(runId: string): Promise<StoredRun[]>
  /** The run's events in seq order, those after `afterSeq` when given. */
  events(runId: string, afterSeq?: number): Promise<AgentEvent[]>
  /**
   * Deletes the runs that finished before `finishedBefore` (an ISO time), with
   * their events, in one transaction; running runs are never deleted. Returns
   * the ids deleted, so their files can go too.
   */
  deleteFinishedRuns(options: { finishedBefore: string }): Promise<string[]>
  /**
   * Renews the lease of `owner`'s running runs: it is alive at `at`. Returns
   * the ids renewed: a run live at the owner and not among them is no longer its.
   */
  heartbeat(owner: RunOwner, at: Date): Promise<string[]>
  /**
   * Marks runs still `running` whose owner is gone as failed (reason error)
   * and appends their final `done` event, so every stored run ends. Returns
   * the ids marked.
   */
  markInterruptedRuns(options: MarkInterruptedOptions): Promise<string[]>
  close(): Promise<void>
}

/**
 * The run a stream starts, as stored: named and timed by its first event (a
 * `run_started`, whose task, model and startUrl `info` may be), a sub-agent's
 * linked to the run that dispatched it.
 */
export function newRunOf(
  first: AgentEvent,
  info: { task: string; model: string; startUrl?: string | undefined },
  owner: RunOwner,
): NewRun {
  return {
    id: first.runId,
    task: info.task,
    model: info.model,
    ...(info.startUrl === undefined ? {} : { startUrl: info.startUrl }),
    ...(first.parentRunId === undefined ? {} : { parentRunId: first.parentRunId }),
    createdAt: first.at,
    owner,
  }
}

/** How a run ended, as its `done` event says. */
export function outcomeOf(done: AgentEventOf<'done'>): RunOutcome {
  return {
    reason: done.reason,
    result: done.result,
    usage: done.usage,
    costUsd: done.costUsd ?? null,
    steps: done.steps,
    finishedAt: done.at,
  }
}

export const defaultPageSize = 20
export const maxPageSize = 100

export function pageSize(limit: number | undefined): number {
  if (limit === undefined) return defaultPageSize
  return Math.min(maxPageSize, Math.max(1, Math.floor(limit)))
}
