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
  /** Whether the DOM's wait ended by its quiet window, not by the cap (a page that never stops, or a load that never ends). */
  quiet: boolean
  /** Whether it waited for a late effect of the action (a timer its handlers set, a transition it started). */
  late: boolean
  /**
   * Whether `framed` was told of the page and the DOM saw no write since (a
   * picture started then shows the page as settled).
   */
  unchangedSinceFramed: boolean
}

/**
 * Waits, within a bound, for what the last action set off: a document that
 * loads, the requests the view depends on (documents, scripts, data, styles;
 * not images, media, beacons or long polls), then the DOM going quiet for a
 * moment. A request that starts meanwhile is waited for in turn. With the
 * watch of the action just done (page-watch.ts), the quiet is counted from
 * the action: one that changed nothing costs a frame. Without one (a new tab,
 * a new document, a view request started since the action), the quiet window
 * starts now. `framed` is told when the first frame of the last quiet window
 * is drawn, while the window still runs (a picture can be taken then).
 */
export async function settlePage(
  page: Page,
  activity: NetworkActivity | undefined,
  signal: AbortSignal,
  options: SettleOptions = {},
  watch?: ActionWatch,
  framed?: () => void,
): Promise<Settled> {
  const deadline = performance.now() + (options.capMs ?? 3000)
  const domQuietMs = options.domQuietMs ?? 25
  const domBusyMs = options.domBusyMs ?? 1000
  const unsettled = { loaded: false, watched: false, quiet: false, late: false, unchangedSinceFramed: false }
  const frames = new FirstFrames(framed)
  try {
    for (;;) {
      if (remaining(deadline) <= 0) return unsettled
      try {
        await page.waitForLoadState('domcontentloaded', { timeout: Math.round(remaining(deadline)), signal })
      } catch (error) {
        if (signal.aborted || isAbortError(error)) throw new AbortError()
        return unsettled
      }
      while (activity?.holdsView()) {
        if (remaining(deadline) <= 0) return unsettled
        await sleep(Math.min(15, remaining(deadline)), signal)
      }
      const lastStart = activity?.lastViewStartAt()
      const busyMs = Math.min(domBusyMs, remaining(deadline))
      // A watch answers once: after it, a request the DOM's change started is waited for afresh.
      const fit = watch?.page === page && !(activity && activity.lastViewStartAt() >= watch.startedAt)
      if (fit && watch && framed) {
        const tell = frames.watcher()
        void watch.framed(signal).then(
          (writes) => writes !== undefined && tell(writes),
          () => {},
        )
      }
      const watched = fit ? await watch?.settle(domQuietMs, busyMs, signal) : undefined
      watch = undefined
      const dom: DomQuiet = watched
        ? {
            state: watched.quiet ? 'quiet' : 'busy',
            loaded: watched.loaded,
            writes: watched.writes,
            late: watched.late,
          }
        : await waitForDomQuiet(page, domQuietMs, busyMs, signal, framed ? frames.watcher() : undefined)
      // A navigation replaced the document, or the DOM's change started a request: wait for that too.
      if (dom.state === 'gone' || (activity && activity.lastViewStartAt() !== lastStart)) continue
      // What the view needs is there; a resource still loading (an image that never arrives) is said, not waited for.
      return {
        loaded: dom.loaded,
        watched: watched !== undefined,
        quiet: dom.state === 'quiet',
        late: dom.late === true,
        unchangedSinceFramed: frames.unchangedAt(dom.writes),
      }
    }
  } finally {
    frames.close()
  }
}

/**
 * The first frames of the watchers a settle goes through, each new watcher
 * (the action's, then a fresh one) making the earlier ones' news stale: only
 * the latest watcher's frame is told, and compared with its final count.
 */
class FirstFrames {
  readonly #framed: (() => void) | undefined
  #latest = 0
  #writes: number | undefined
  #closed = false

  constructor(framed: (() => void) | undefined) {
    this.#framed = framed
  }

  /** A new watcher: returns what to call with its writes at its first frame. */
  watcher(): (writes: number) => void {
    const mine = ++this.#latest
    this.#writes = undefined
    return (writes) => {
      if (this.#closed || mine !== this.#latest) return
      this.#writes = writes
      this.#framed?.()
    }
  }

  /** Whether the latest watcher's frame was told and the DOM saw no write since. */
  unchangedAt(writes: number | undefined): boolean {
    return this.#writes !== undefined && writes === this.#writes
  }

  close(): void {
    this.#closed = true
  }
}
