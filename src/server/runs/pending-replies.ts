import { AbortError } from '../../tool.ts'

interface Slot<T> {
  settled?: { value: T }
  waiter?: (value: T) => void
}

/**
 * Replies a run is waiting for (confirmations, answers), keyed by call or
 * question id. An id is expected as soon as its event is announced, so a reply
 * that arrives before the agent starts waiting is kept, not refused.
 */
export class PendingReplies<T> {
  readonly #slots = new Map<string, Slot<T>>()

  /** Announces that a reply for `id` may come. */
  expect(id: string): void {
    if (!this.#slots.has(id)) this.#slots.set(id, {})
  }

  /** Whether `id` is waiting for a reply that has not come yet. */
  isPending(id: string): boolean {
    const slot = this.#slots.get(id)
    return slot !== undefined && slot.settled === undefined
  }

  /** The ids `matches` accepts that are waiting for a reply. */
  pendingWhere(matches: (id: string) => boolean): string[] {
    const found: string[] = []
    for (const [id, slot] of this.#slots) if (slot.settled === undefined && matches(id)) found.push(id)
    return found
  }

  /** Delivers a reply; false when nothing waits for `id` or it was answered already. */
  settle(id: string, value: T): boolean {
    const slot = this.#slots.get(id)
    if (!slot || slot.settled) return false
    slot.settled = { value }
    slot.waiter?.(value)
    return true
  }

  /** Waits for the reply to `id`; rejects with AbortError when the signal aborts first. */
  wait(id: string, signal: AbortSignal): Promise<T> {
    let slot = this.#slots.get(id)
    if (!slot) {
      slot = {}
      this.#slots.set(id, slot)
    }
    const current = slot
    if (current.settled) return Promise.resolve(current.settled.value)
    if (signal.aborted) return Promise.reject(new AbortError())
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        current.waiter = undefined
        this.#slots.delete(id)
        reject(new AbortError())
      }
      current.waiter = (value) => {
        signal.removeEventListener('abort', onAbort)
        current.waiter = undefined
        resolve(value)
      }
      signal.addEventListener('abort', onAbort, { once: true })
    })
  }

  /** The exchange is over (resolved, timed out or withdrawn): later replies are refused. */
  forget(id: string): void {
    this.#slots.delete(id)
  }
}
