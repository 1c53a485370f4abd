import type { AgentEvent } from '../events/events.ts'
import type { RunStore } from './types.ts'

/**
 * Queues events and writes them in one transaction per event-loop tick, so a
 * fast stream of text deltas costs one write per tick instead of one per
 * delta, and a stream never waits on the database.
 */
export class EventWriter {
  readonly #store: RunStore
  readonly #onError: (error: unknown, lost: number) => void
  #pending: AgentEvent[] = []
  #scheduled: NodeJS.Immediate | undefined

  constructor(store: RunStore, onError: (error: unknown, lost: number) => void) {
    this.#store = store
    this.#onError = onError
  }

  push(event: AgentEvent): void {
    this.#pending.push(event)
    this.#scheduled ??= setImmediate(() => this.flush())
  }

  /** Writes what is queued now; a failed write is reported, never thrown into the stream. */
  flush(): void {
    if (this.#scheduled) clearImmediate(this.#scheduled)
    this.#scheduled = undefined
    if (this.#pending.length === 0) return
    const batch = this.#pending
    this.#pending = []
    try {
      this.#store.appendEvents(batch)
    } catch (error) {
      this.#onError(error, batch.length)
    }
  }
}
