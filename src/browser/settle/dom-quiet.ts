import type { Page } from 'playwright-core'
import { isAbortError } from '../../tool.ts'
import { withDeadline } from '../../util/deadline.ts'
import { type QuietInPage, watchInPage } from './page-watch.ts'

/** How a wait for the DOM to stop changing ended, and whether the document had loaded by then (its `load` event). */
export interface DomQuiet {
  state: 'quiet' | 'busy' | 'gone'
  loaded: boolean
}

/**
 * Waits in the page until its DOM has not changed for `quietMs`, one frame at
 * least having been drawn (frameworks commit updates in a frame): 'quiet'; or
 * until `maxMs` passed with the DOM still changing (a ticker, an animation
 * written into the DOM): 'busy'; or the document went away under the wait (a
 * navigation): 'gone'. The quiet window starts now: an action's watch
 * (page-watch.ts) spares it when the action had one.
 */
export async function waitForDomQuiet(
  page: Page,
  quietMs: number,
  maxMs: number,
  signal: AbortSignal,
): Promise<DomQuiet> {
  const capMs = Math.max(1, Math.round(maxMs))
  // One round trip: a watcher with no action to time from starts, counts as ended at once, and waits.
  const expression = `(() => { const watch = (${watchInPage})([]); watch.end(); return watch.settle(${quietMs}, ${capMs}) })()`
  try {
    // The page's own scripts can break what the wait relies on: the deadline ends it whatever they did.
    const waiting = page.evaluate<QuietInPage>(expression)
    const { quiet, loaded } = await withDeadline(waiting, maxMs + 500, signal, 'DOM quiet wait')
    return { state: quiet ? 'quiet' : 'busy', loaded }
  } catch (error) {
    if (isAbortError(error) || signal.aborted) throw error
    const gone = page.isClosed() || /context was destroyed|navigat/i.test(String(error))
    return { state: gone ? 'gone' : 'busy', loaded: false }
  }
}
