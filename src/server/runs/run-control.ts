import type { AgentEvent } from '../../events/events.ts'
import type { RunStore, StoredRun } from '../../store/run-store.ts'
import { type ControlMessage, isSharedStore, type ReplyMessage } from '../../store/shared.ts'
import { settlesWithin } from '../../util/deadline.ts'
import type { StreamEvent } from '../http/sse.ts'
import { followRun } from './follow-run.ts'
import type { LiveRuns } from './live-runs.ts'
import { abortElsewhere, type ReplyOutcome, replyThroughStore, settleReply } from './run-replies.ts'
import type { QueuePositions, RunWakeups } from './wakeups.ts'

export interface RunControlParts {
  store: RunStore
  live: LiveRuns
  wakeups: RunWakeups
  positions: QueuePositions | undefined
  /** The live-only events of a run another server runs (see routes/owner-text.ts); absent: none relayed. */
  ownerText?: (runId: string, signal: AbortSignal) => AsyncIterable<AgentEvent>
  /** A queued run was taken out of the queue, ending it here: its webhook is this server's to tell. */
  onWithdrawn?: (runId: string) => void
}

/** How long DELETE waits for an aborted run to reach `done` before answering its state as is. */
const abortWaitMs = 5000

/** Followers of another server's run re-read the store this often even without a notification. */
const followPollMs = 1000

/**
 * Reaching a run wherever it executes, here or on another server sharing the
 * store: following its events, replying to its confirmations and questions,
 * aborting it; and acting on what other servers say to the runs live here.
 */
export class RunControl {
  readonly #parts: RunControlParts

  constructor(parts: RunControlParts) {
    this.#parts = parts
  }

  /** The run's events after `afterSeq`, then each new one until `done`, wherever it runs (see followRun). */
  follow(runId: string, afterSeq: number, signal: AbortSignal): AsyncGenerator<StreamEvent, void, undefined> {
    const { store, wakeups, live, positions, ownerText } = this.#parts
    return followRun(
      {
        store,
        wakeups,
        positions,
        live: (id) => live.get(id),
        pollMs: followPollMs,
        ...(ownerText ? { ownerText } : {}),
      },
      runId,
      afterSeq,
      signal,
    )
  }

  /**
   * Aborts a run and answers its final state; a finished run's state is
   * answered unchanged. Another server's run is told through the shared store;
   * a queued one is taken out of the queue.
   */
  async abort(runId: string): Promise<StoredRun | undefined> {
    const { store, live } = this.#parts
    const run = live.get(runId)
    if (run) {
      run.abort()
      await settlesWithin(run.finished, abortWaitMs)
      return run.snapshot()
    }
    if (!isSharedStore(store)) return store.getRun(runId)
    return abortElsewhere(store, runId, abortWaitMs, {
      follow: (signal) => this.follow(runId, -1, signal),
      withdrawn: () => this.#parts.onWithdrawn?.(runId),
    })
  }

  /**
   * Delivers a confirmation or an answer to the run waiting for it, on this
   * server or another. With a shared store, it is recorded first, once: the
   * same reply sent twice (to two servers) is refused the second time.
   */
  async reply(message: ReplyMessage): Promise<ReplyOutcome> {
    const { store, live } = this.#parts
    const run = live.holding(message.runId)
    if (!isSharedStore(store)) {
      if (!run) return (await store.getRun(message.runId)) ? 'ended' : 'not_found'
      return settleReply(run, message)
    }
    return replyThroughStore(store, run, message)
  }

  /** A message from another server (or this one, through the store): acted on when its run is live here. */
  onControl(message: ControlMessage): void {
    const { live } = this.#parts
    if (message.kind === 'abort') {
      live.get(message.runId)?.abort()
      return
    }
    const run = live.holding(message.runId)
    if (run) settleReply(run, message)
  }
}
