import type { Page } from 'playwright-core'
import { AbortError, isAbortError, sleep } from '../../tool.ts'
import { remaining } from '../../util/deadline.ts'
import { type DomQuiet, waitForDomQuiet } from './dom-quiet.ts'
import type { NetworkActivity } from './network-activity.ts'
import type { ActionWatch } from './page-watch.ts'

export interface SettleOptions {
  /** Upper bound on the whole wait, so a page that never stops loading cannot stall a step. */
  capMs?: number
  /**
   * How long the DOM must stay unchanged. Short: an action's own effects land
   * within a frame or two; what starts later (a debounced request) is in
   * flight by the next observation, which waits for it then.
   */
  domQuietMs?: number
  /** Longest wait for a DOM that keeps changing (a ticker) once its network is done. */
  domBusyMs?: number
}

/** Whether the page loaded (its `load` event) within the bound, and whether the action's watch spared a fresh quiet window. */
export interface Settled {
  loaded: boolean
  watched: boolean
  /** With the watch: how many DOM writes it saw in all (see `ActionWatch.framed`). */
  writes?: number
}

/**
 * Waits, within a bound, for what the last action set off: a document that
 * loads, the requests the view depends on (documents, scripts, data, styles;
 * not images, media, beacons or long polls), then the DOM going quiet for a
 * moment. A request that starts meanwhile is waited for in turn. With the
 * watch of the action just done (page-watch.ts), the quiet is counted from
 * the action: one that changed nothing costs a frame. Without one (a new tab,
 * a new document, a view request started since the action), the quiet window
 * starts now.
 */
export async function settlePage(
  page: Page,
  activity: NetworkActivity | undefined,
  signal: AbortSignal,
  options: SettleOptions = {},
  watch?: ActionWatch,
): Promise<Settled> {
  const deadline = performance.now() + (options.capMs ?? 3000)
  const domQuietMs = options.domQuietMs ?? 25
  const domBusyMs = options.domBusyMs ?? 1000
  for (;;) {
    if (remaining(deadline) <= 0) return { loaded: false, watched: false }
    try {
      await page.waitForLoadState('domcontentloaded', { timeout: Math.round(remaining(deadline)), signal })
    } catch (error) {
      if (signal.aborted || isAbortError(error)) throw new AbortError()
      return { loaded: false, watched: false }
    }
    while (activity?.holdsView()) {
      if (remaining(deadline) <= 0) return { loaded: false, watched: false }
      await sleep(Math.min(15, remaining(deadline)), signal)
    }
    const lastStart = activity?.lastViewStartAt()
    const busyMs = Math.min(domBusyMs, remaining(deadline))
    // A watch answers once: after it, a request the DOM's change started is waited for afresh.
    const fit = watch?.page === page && !(activity && activity.lastViewStartAt() >= watch.startedAt)
    const watched = fit ? await watch?.settle(domQuietMs, busyMs, signal) : undefined
    watch = undefined
    const dom: DomQuiet = watched
      ? { state: watched.quiet ? 'quiet' : 'busy', loaded: watched.loaded }
      : await waitForDomQuiet(page, domQuietMs, busyMs, signal)
    // A navigation replaced the document, or the DOM's change started a request: wait for that too.
    if (dom.state === 'gone' || (activity && activity.lastViewStartAt() !== lastStart)) continue
    // What the view needs is there; a resource still loading (an image that never arrives) is said, not waited for.
    return {
      loaded: dom.loaded,
      watched: watched !== undefined,
      ...(watched ? { writes: watched.writes } : {}),
    }
  }
}
