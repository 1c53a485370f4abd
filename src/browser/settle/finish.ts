import { sleep } from '../../tool.ts'
import type { NetworkActivity, PendingRequest } from './network-activity.ts'

export type { PendingRequest } from './network-activity.ts'

/** What a session saw while it waited, before closing, for what the last actions set off. */
export interface FinishReport {
  waitedMs: number
  /** Requests that ended (finished or failed) during the wait. */
  completed: number
  /** Requests still in flight when the wait ended (at its cap); empty when everything finished. */
  pending: PendingRequest[]
}

export interface FinishOptions {
  /** Upper bound on the wait (default 5 s). */
  capMs?: number
  /**
   * How long the network must stay quiet after the last action or request:
   * a debounced save starts this long after the click at most (default 1 s).
   */
  lateStartMs?: number
}

/**
 * Waits until the requests the pages started have completed and no new one
 * started for `lateStartMs` after the last action, within a cap. Streams and
 * media are not waited for; everything that can carry a change to a server is,
 * beacons included.
 */
export async function awaitLastEffects(
  activities: NetworkActivity[],
  lastActionAt: number,
  signal: AbortSignal,
  options: FinishOptions = {},
): Promise<FinishReport> {
  const started = performance.now()
  const capMs = options.capMs ?? 5000
  const lateStartMs = options.lateStartMs ?? 1000
  const endedBefore = activities.reduce((sum, activity) => sum + activity.endedCount(), 0)
  const pending = () => activities.flatMap((activity) => activity.effects(capMs))
  for (;;) {
    const now = performance.now()
    const lastChange = Math.max(lastActionAt, ...activities.map((activity) => activity.lastChangeAt()))
    const inFlight = pending()
    if ((inFlight.length === 0 && now - lastChange >= lateStartMs) || now - started >= capMs) {
      const completed = activities.reduce((sum, activity) => sum + activity.endedCount(), 0) - endedBefore
      return { waitedMs: Math.round(now - started), completed, pending: inFlight }
    }
    await sleep(25, signal)
  }
}
