import type { SharedRunStore } from '../../store/shared.ts'

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

/** One read of the places, for the runs followed here when it was made. */
interface PlacesRead {
  /** The queue's moves heard before it was made: a move since makes it stale. */
  moves: number
  runIds: ReadonlySet<string>
  places: Promise<ReadonlyMap<string, number>>
}

/**
 * The queue places of the queued runs followed on this server, read once per
 * move of the queue for all of them: a move (a run queued, claimed, expired
 * or withdrawn, told by NOTIFY, or the beat that looks in case one was
 * missed) makes the last read stale, and the first follower to ask after it
 * reads the places of every run followed here in one query, which the others
 * share. Without it each follower recounted its own place at every move.
 */
export class QueuePositions {
  readonly #store: SharedRunStore
  /** Followers here per queued run. */
  readonly #followed = new Map<string, number>()
  #moves = 0
  #last: PlacesRead | undefined

  constructor(store: SharedRunStore) {
    this.#store = store
  }

  /** A follower waits on `runId` while it is queued: its place is read with the others'. Returns the stop. */
  follow(runId: string): () => void {
    this.#followed.set(runId, (this.#followed.get(runId) ?? 0) + 1)
    let stopped = false
    return () => {
      if (stopped) return
      stopped = true
      const left = (this.#followed.get(runId) ?? 1) - 1
      if (left > 0) this.#followed.set(runId, left)
      else this.#followed.delete(runId)
    }
  }

  /** The queue moved (or may have): places read before are stale. */
  moved(): void {
    this.#moves++
  }

  /** The run's place (1: claimed next); undefined once it is not queued. */
  async of(runId: string): Promise<number | undefined> {
    let read = this.#last
    if (read === undefined || read.moves !== this.#moves || !read.runIds.has(runId)) {
      const runIds = new Set([...this.#followed.keys(), runId])
      const fresh: PlacesRead = {
        moves: this.#moves,
        runIds,
        places: this.#store.queuePositions([...runIds]),
      }
      // A failed read is not kept: the next follower to ask reads again.
      fresh.places.catch(() => {
        if (this.#last === fresh) this.#last = undefined
      })
      this.#last = read = fresh
    }
    return (await read.places).get(runId)
  }
}
