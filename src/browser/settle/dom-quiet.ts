import type { JSHandle, Page } from 'playwright-core'
import { isAbortError } from '../../tool.ts'
import { withDeadline } from '../../util/deadline.ts'
import { type PageWatch, watcherSource } from './page-watch.ts'

/** How a wait for the DOM to stop changing ended, and whether the document had loaded by then (its `load` event). */
export interface DomQuiet {
  state: 'quiet' | 'busy' | 'gone'
  loaded: boolean
  /** Whether it waited for a late effect (a timer set by input, a transition started meanwhile). */
  late?: boolean
  /** The DOM writes the wait saw in all, inline styles included (see `PageWatch.framed`), when it ended in the page. */
  writes?: number
}

/**
 * Waits in the page until its DOM has not changed for `quietMs`, one frame at
 * least having been drawn (frameworks commit updates in a frame): 'quiet'; or
 * until `maxMs` passed with the DOM still changing (a ticker, an animation
 * written into the DOM): 'busy'; or the document went away under the wait (a
 * navigation): 'gone'. The quiet window starts now: an action's watch
 * (page-watch.ts) spares it when the action had one. `framed` is told the
 * writes seen by the first frame drawn, while the window still runs.
 */
export async function waitForDomQuiet(
  page: Page,
  quietMs: number,
  maxMs: number,
  signal: AbortSignal,
  framed?: (writes: number) => void,
): Promise<DomQuiet> {
  const capMs = Math.max(1, Math.round(maxMs))
  try {
    // The page's own scripts can break what the wait relies on: the deadline ends it whatever they did.
    const waiting = (async () => {
      // A watcher with no action to time from: it starts and counts as ended at once. Built from source
      // (the page cannot call a function of ours by name), so its handle is typed here.
      const handle = (await page.evaluateHandle(watcherSource([], true))) as JSHandle<PageWatch>
      try {
        if (framed)
          void handle
            .evaluate((watch) => watch.framed())
            .then((writes) => writes >= 0 && framed(writes))
            .catch(() => {})
        return await handle.evaluate((watch, { quiet, cap }) => watch.settle(quiet, cap), {
          quiet: quietMs,
          cap: capMs,
        })
      } finally {
        void handle.dispose().catch(() => {})
      }
    })()
    const { quiet, loaded, writes, late } = await withDeadline(waiting, maxMs + 500, signal, 'DOM quiet wait')
    return { state: quiet ? 'quiet' : 'busy', loaded, writes, late }
  } catch (error) {
    if (isAbortError(error) || signal.aborted) throw error
    const gone = page.isClosed() || /context was destroyed|navigat/i.test(String(error))
    return { state: gone ? 'gone' : 'busy', loaded: false }
  }
}
