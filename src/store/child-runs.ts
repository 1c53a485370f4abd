import { type AgentEvent, isLiveOnly } from '../events/events.ts'
import type { EventWriter } from './event-writer.ts'
import type { RunOwner } from './owner.ts'
import { newRunOf, outcomeOf, type RunStore } from './run-store.ts'

/**
 * Stores the sub-agents a run's stream carries as runs of their own, linked
 * to the run that dispatched them. A forwarded event (one with `parentRunId`)
 * holds the parent stream's seq; under its child's run it takes the child's
 * own, counted from the child's `run_started`, which gives back exactly the
 * seq the child stamped (its stream arrives whole and in order).
 */
export class ChildRunRecorder {
  readonly #store: RunStore
  readonly #writer: EventWriter
  readonly #owner: RunOwner
  readonly #onError: (error: unknown) => void
  /** The next seq of each child still running. */
  readonly #nextSeq = new Map<string, number>()

  constructor(store: RunStore, writer: EventWriter, owner: RunOwner, onError: (error: unknown) => void) {
    this.#store = store
    this.#writer = writer
    this.#owner = owner
    this.#onError = onError
  }

  /** Stores a forwarded event under its child's run; false (and nothing stored) for the stream's own events. */
  record(event: AgentEvent): boolean {
    if (event.parentRunId === undefined) return false
    // Live-only (see isLiveOnly): the child's stored stream stays gapless without it.
    if (isLiveOnly(event)) return true
    try {
      if (event.type === 'run_started') {
        this.#stored(() => this.#store.createRun(newRunOf(event, event, this.#owner)))
        this.#nextSeq.set(event.runId, 0)
      }
      const seq = this.#nextSeq.get(event.runId)
      // A child whose start this recorder did not see (it failed to store) is not stored either.
      if (seq === undefined) return true
      this.#nextSeq.set(event.runId, seq + 1)
      this.#writer.push({ ...event, seq })
      if (event.type === 'done') {
        this.#nextSeq.delete(event.runId)
        this.#stored(() => this.#store.finishRun(event.runId, outcomeOf(event), this.#owner))
      }
    } catch (error) {
      this.#onError(error)
    }
    return true
  }

  /** A run's creation and end, in order with its events. */
  #stored(work: () => Promise<void>): void {
    this.#writer.inOrder(work).catch(this.#onError)
  }
}
