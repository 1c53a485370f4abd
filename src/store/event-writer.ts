import type { AgentEvent } from '../events/events.ts'
import type { RunStore } from './run-store.ts'

/**
 * Queues events and writes them in one transaction per event-loop tick, so a
 * fast stream of text deltas costs one write per tick instead of one per
 * delta, and a stream never waits on the database.
 *
 * One write is in flight at a time: a shared store's connections may commit
 * two concurrent batches in either order, and a follower reading between them
 * would see a gap in seq.
 */
export class EventWriter {
  readonly #store: RunStore
  readonly #onError: (error: unknown, lost: number) => void
  #pending: AgentEvent[] = []
  #scheduled: NodeJS.Immediate | undefined
  /** Settles when every batch handed to the store so far is written (or reported lost). */
  #written: Promise<void> = Promise.resolve()

  constructor(store: RunStore, onError: (error: unknown, lost: number) => void) {
    this.#store = store
    this.#onError = onError
  }

  push(event: AgentEvent): void {
    this.#pending.push(event)
    this.#scheduled ??= setImmediate(() => void this.flush())
  }

  /**
   * Runs another store write in the stream's order: after every event pushed
   * so far is written, before any pushed later (a run is created before its
   * first event, ended after its last). Its failure is the caller's, and never
   * stops the writes after it.
   */
  inOrder<T>(work: () => Promise<T>): Promise<T> {
    void this.flush()
    const result = this.#written.then(work)
    this.#written = result.then(
      () => {},
      () => {},
    )
    return result
  }

  /**
   * Writes what is queued now, after the batches before it; settles once it is
   * written. A failed write is reported, never thrown into the stream.
   */
  flush(): Promise<void> {
    if (this.#scheduled) clearImmediate(this.#scheduled)
    this.#scheduled = undefined
    if (this.#pending.length === 0) return this.#written
    const batch = this.#pending
    this.#pending = []
    this.#written = this.#written.then(async () => {
      try {
        await this.#store.appendEvents(batch)
      } catch (error) {
        this.#onError(error, batch.length)
      }
    })
    return this.#written
  }
}
