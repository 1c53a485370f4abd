/**
 * Keeps an action from overtaking what was asked of the page before it: a
 * screenshot of the observed page that the agent took without waiting for it
 * (so the model request need not wait either) must show the page as observed,
 * not as the next action left it. Also remembers when the last action ended,
 * for the wait before the browser closes.
 */
export class ActionGate {
  readonly #pending = new Set<Promise<unknown>>()
  #lastActionAt = Number.NEGATIVE_INFINITY

  /** Holds the next action until `work` is over (whether it succeeds or not). */
  hold<T>(work: Promise<T>): Promise<T> {
    const held = work.then(
      () => {},
      () => {},
    )
    this.#pending.add(held)
    held.then(() => this.#pending.delete(held))
    return work
  }

  /** Resolves once everything held before this call is over. */
  async cleared(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all(this.#pending)
  }

  acted(): void {
    this.#lastActionAt = performance.now()
  }

  /** When the last action ended (performance.now() time; -Infinity before any). */
  lastActionAt(): number {
    return this.#lastActionAt
  }
}
