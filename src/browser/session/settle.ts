import type { Page } from 'playwright-core'
import { AbortError, isAbortError, sleep } from '../../tool.ts'
import { remaining } from '../../util/deadline.ts'
import type { NetworkActivity } from './network-activity.ts'

export interface SettleOptions {
  /** Upper bound on the whole wait, so a page that never stops loading cannot stall a step. */
  capMs?: number
  /** How long the network must stay quiet. */
  quietMs?: number
  /**
   * Shortest wait: what an action sets off (a popup, a download, a debounced
   * request) often starts a moment after the action returns.
   */
  minimumMs?: number
}

/**
 * Waits, within a bound, for the page to be usable: its document loaded and
 * its network quiet for a moment. Returns whether it got there; a page whose
 * only requests in flight have hung is not waited for once it is otherwise quiet.
 */
export async function settlePage(
  page: Page,
  activity: NetworkActivity | undefined,
  signal: AbortSignal,
  options: SettleOptions = {},
): Promise<boolean> {
  const started = performance.now()
  const deadline = started + (options.capMs ?? 3000)
  const quietMs = options.quietMs ?? 300
  const minimumMs = options.minimumMs ?? 250
  try {
    await page.waitForLoadState('domcontentloaded', { timeout: Math.round(remaining(deadline)), signal })
  } catch (error) {
    if (signal.aborted || isAbortError(error)) throw new AbortError()
    return false
  }
  const stop = new AbortController()
  let loaded = false
  page
    .waitForLoadState('load', { timeout: Math.max(1, Math.round(remaining(deadline))), signal: stop.signal })
    .then(
      () => {
        loaded = true
      },
      () => {},
    )
  try {
    while (remaining(deadline) > 0) {
      const waited = performance.now() - started
      const quiet = !activity || activity.quietFor() >= quietMs
      if (waited >= minimumMs && quiet && (loaded || activity?.hasLongLived())) return loaded
      await sleep(Math.min(50, remaining(deadline)), signal)
    }
    return false
  } finally {
    stop.abort()
  }
}
