/**
 * Followers of runs that execute elsewhere wait here for the store's word
 * that new events arrived (a NOTIFY), keyed by run id. A follower takes its
 * wake-up before it reads the store, so an event stored between the read and
 * the wait still wakes it.
 */
export class RunWakeups {
  readonly #waiters = new Map<string, Set<() => void>>()

  /** A promise that settles at the next wake of `runId`; `cancel` drops it. */
  next(runId: string): { woken: Promise<void>; cancel(): void } {
    const { promise, resolve } = Promise.withResolvers<void>()
    let set = this.#waiters.get(runId)
    if (!set) {
      set = new Set()
      this.#waiters.set(runId, set)
    }
    const waiters = set
    waiters.add(resolve)
    return {
      woken: promise,
      cancel: () => {
        waiters.delete(resolve)
        if (waiters.size === 0 && this.#waiters.get(runId) === waiters) this.#waiters.delete(runId)
      },
    }
  }

  wake(runId: string): void {
    const waiters = this.#waiters.get(runId)
    if (!waiters) return
    this.#waiters.delete(runId)
    for (const resolve of waiters) resolve()
  }

  /** Wakes every follower (a reconnected listener may have missed notifications). */
  wakeAll(): void {
    for (const runId of [...this.#waiters.keys()]) this.wake(runId)
  }
}
