import { type ArtifactStore, type DownloadStore, folderArtifacts } from '../util/run-downloads.ts'
import type { StepFileStore } from '../util/step-files.ts'
import type { RunOwner } from './owner.ts'
import type { NewRun, RunStore, StoredRun } from './run-store.ts'

/**
 * What a store shared by several servers adds to RunStore: wake-ups and
 * messages between the servers (so a run on one is followed, answered and
 * aborted from another), replies recorded once, and a queue of runs any
 * server may claim. PostgreSQL provides it; the embedded stores do not.
 */

/** A reply a run waits for, sent to whichever server received it. */
export type ReplyMessage =
  | { kind: 'confirmation'; runId: string; id: string; approve: boolean }
  | { kind: 'answer'; runId: string; id: string; answer: string }

export interface AbortMessage {
  kind: 'abort'
  runId: string
}

/** Told to every server: the owner of `runId` acts on it, the others ignore it. */
export type ControlMessage = ReplyMessage | AbortMessage

/** A run waiting in the queue, with the request that starts it (secrets included, until it is claimed). */
export interface ClaimedRun {
  run: StoredRun
  request: unknown
}

/** How a run waits in the queue. */
export interface QueueTicket {
  /** Higher first; first come within one priority. Default 0. */
  priority?: number
  /** Ended (reason `error`) when no server claimed it within this long. */
  timeoutMs?: number
  /** The queue's bound (SEXTANT_QUEUE_MAX): a run beyond it is not queued. */
  max?: number
}

export interface SharedRunStore extends RunStore {
  readonly shared: true
  /** Starts listening for other servers; resolves once listening. */
  listen(handlers: SharedStoreHandlers): Promise<void>
  /**
   * Listens for new events of one run (its own channel), as long as someone
   * here follows it: resolves once listening, to the function that stops.
   * No server is woken by the events of runs it does not follow.
   */
  followEvents(runId: string, onEvents: (lastSeq: number) => void): Promise<() => Promise<void>>
  /**
   * Records a reply unless one for the same run, kind and id was recorded
   * before (by any server), then tells every server. Resolves whether it was
   * recorded now; rejects with RunFencedError once the run is not running
   * (ended, by its owner or by another server after its owner's lease lapsed).
   */
  recordReply(message: ReplyMessage): Promise<boolean>
  /** Tells every server, this one included. (Replies go through recordReply.) */
  sendControl(message: AbortMessage): Promise<void>
  /**
   * Stores the run as `queued` with the request that starts it, and wakes the
   * servers; false (nothing stored) when the queue holds `ticket.max` runs already.
   */
  enqueueRun(run: NewRun, request: unknown, ticket?: QueueTicket): Promise<boolean>
  /**
   * Takes the queued run no other server is taking that comes first (highest
   * priority, then oldest), as `owner`'s; undefined when none waits. A run
   * past its queue timeout is never taken.
   */
  claimQueuedRun(owner: RunOwner, at: Date): Promise<ClaimedRun | undefined>
  /**
   * Ends the queued runs that waited past their queue timeout (on the store's
   * clock), failed with reason `error` and a `done` that says why; their ids.
   */
  expireQueuedRuns(at: Date): Promise<string[]>
  /**
   * Takes a run out of the queue before any server claimed it, and ends it as
   * stopped with `done`. False when it was claimed already (or never queued).
   */
  withdrawQueuedRun(runId: string, at: Date): Promise<boolean>
  /**
   * The places of those of `runIds` still queued, in one read (1: the next to
   * be claimed); a run claimed (or never queued) is not in the answer.
   */
  queuePositions(runIds: readonly string[]): Promise<Map<string, number>>
  queueDepth(): Promise<number>
  /** Steps' screenshots and page views, kept in the shared store: any server serves them. */
  readonly stepFiles: StepFileStore
  /** Runs' downloads, kept in the shared store: any server serves them. */
  readonly downloads: DownloadStore
  /** Runs' artifacts (trace, videos, HAR), kept likewise. */
  readonly artifacts: ArtifactStore
  /** The internal address of the server running `runId` (its `owner.url`); undefined unless it is running. */
  ownerUrl(runId: string): Promise<string | undefined>
}

export interface SharedStoreHandlers {
  onControl(message: ControlMessage): void
  /** A run was queued, or a server may have a free slot again. */
  onQueue(): void
}

export function isSharedStore(store: RunStore): store is SharedRunStore {
  return (store as Partial<SharedRunStore>).shared === true
}

/**
 * Where runs' artifacts are kept, for whoever writes or reads them (a server, `sextant run`, `sextant runs
 * export`): the shared store, where any server serves them, else the runs folder; neither, nowhere.
 */
export function artifactPlace(
  store: RunStore | undefined,
  runsDir: string | undefined,
): ArtifactStore | undefined {
  if (store && isSharedStore(store)) return store.artifacts
  return runsDir === undefined ? undefined : folderArtifacts(runsDir)
}
