import type { JSHandle, Page } from 'playwright-core'
import { isAbortError } from '../../tool.ts'
import { withDeadline } from '../../util/deadline.ts'
import { animationsEndInPage, type LateTimers, lateTimersSource } from './late-timers.ts'

/** How a wait for the DOM to stop changing ended in the page, and whether the document had loaded by then (its `load` event). */
export interface QuietInPage {
  quiet: boolean
  /** Whether it waited for a late effect of the action (a timer its handlers set, a transition it started). */
  late: boolean
  loaded: boolean
  /** How many DOM writes the watch saw in all, inline styles included (a picture shows those). */
  writes: number
}

/** The watcher as it lives in the page, reached only through the JSHandle that `evaluateHandle` returned. */
export interface PageWatch {
  /** The action is over: a frame drawn from now on shows its effects. */
  end(): void
  /** Waits until nothing changed for `quietMs` since the action's cause, a frame having been drawn after `end`; false at `maxMs`. */
  settle(quietMs: number, maxMs: number): Promise<QuietInPage>
  /** Once a frame was drawn after `end` (and that frame's observers ran): the writes seen so far; -1 if it stops first. */
  framed(): Promise<number>
  stop(): void
}

/** Bound on waiting for the frame after an action: a hidden or frozen page draws none. */
const frameWaitMs = 1000

/**
 * The input an action gives a page. Its handlers run when the event arrives:
 * what they set off is timed from the event, not from when the action began
 * (resolving the element, waiting for it to be stable come first). Scroll is
 * left out: a smooth scroll fires it for as long as it glides.
 */
const inputEvents = [
  'pointerdown',
  'pointerup',
  'pointermove',
  'click',
  'dblclick',
  'contextmenu',
  'keydown',
  'keyup',
  'input',
  'change',
  'wheel',
  'drop',
]

/**
 * What a page in the background may be set off by, with no action of the
 * run's: a message (a popup reporting back to its opener before it closes),
 * focus and visibility coming back, another tab writing storage.
 */
export const backgroundEvents = ['message', 'focus', 'visibilitychange', 'storage']

/**
 * Runs in the page: starts watching its DOM for changes and returns the
 * watcher. A closure, not a page global, so the page's scripts cannot reach or
 * break it. The quiet window runs from the later of the last change and the
 * action's cause: its last input event, or its end when it gave none (a
 * script, a navigation). Inline style writes are not changes: animations make
 * them every frame and they do not change what the view shows. A hidden tab
 * draws no frames: there only the quiet window counts.
 *
 * With `late` (the document's timer hook, late-timers.ts) and `animationsEnd`,
 * a window that is over still waits, within the cap, for the timers the
 * action's handlers set and the transitions it started (those ending by the
 * cap), then for a quiet window after them. The watcher's own timers are set
 * through the page's original `setTimeout`, so they are never counted.
 */
export function watchInPage(
  events: string[],
  late?: LateTimers,
  animationsEnd?: (from: number, to: number, until: number) => number,
): PageWatch {
  const later = late?.setTimeout ?? setTimeout
  const cancel = late?.clearTimeout ?? clearTimeout
  const startedAt = performance.now()
  const disarm = late?.arm()
  let changed = Number.NEGATIVE_INFINITY
  let cause: number | undefined
  // The latest end of a late effect the window waited for: the quiet counts from it too.
  let awaited = Number.NEGATIVE_INFINITY
  let framed = document.visibilityState === 'hidden'
  let writes = 0
  let wake = () => {}
  let frameWaiters: ((writes: number) => void)[] = []
  const tellFramed = (count: number) => {
    for (const waiter of frameWaiters) waiter(count)
    frameWaiters = []
  }
  const observer = new MutationObserver((records) => {
    writes += records.length
    if (!records.some((record) => record.type !== 'attributes' || record.attributeName !== 'style')) return
    changed = performance.now()
    wake()
  })
  observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true })
  const onInput = () => {
    cause = performance.now()
  }
  for (const type of events) addEventListener(type, onInput, { capture: true, passive: true })
  const offFired = late?.onFired(() => wake())
  const stop = () => {
    wake = () => {}
    tellFramed(-1)
    disarm?.()
    offFired?.()
    observer.disconnect()
    for (const type of events) removeEventListener(type, onInput, { capture: true })
  }
  return {
    end() {
      cause ??= performance.now()
      requestAnimationFrame(() => {
        framed = true
        wake()
        // A task after the frame: its intersection observers (lazy content after a scroll) have run by then.
        later(() => tellFramed(writes), 0)
      })
    },
    framed() {
      return new Promise((resolve) => {
        if (framed) later(() => resolve(writes), 0)
        else frameWaiters.push(resolve)
      })
    },
    settle(quietMs, maxMs) {
      cause ??= performance.now()
      const capAt = performance.now() + maxMs
      let waitedLate = false
      return new Promise((resolve) => {
        let timer: ReturnType<typeof setTimeout> | undefined
        const finish = (quiet: boolean) => {
          stop()
          cancel(timer)
          cancel(cap)
          resolve({ quiet, late: waitedLate, loaded: document.readyState === 'complete', writes })
        }
        // What the action set off that is still to come: a timer its handlers set, a transition or animation it
        // started (by the frame after its input, or after a timer of its own). Read only once the window is over.
        const lateEnd = (now: number): number => {
          const fired = late ? late.lastFired() : Number.NEGATIVE_INFINITY
          // Only what ends in time for a quiet window after it, before the cap.
          const until = capAt - 2 * quietMs
          const timers = late ? late.pendingUntil(until) : Number.NEGATIVE_INFINITY
          const moving = animationsEnd
            ? animationsEnd(startedAt - 16, Math.max(cause ?? now, fired) + 150, until)
            : Number.NEGATIVE_INFINITY
          return Math.max(timers, moving)
        }
        // The window is over only when a timer of ours finds it so. After a stall of the main thread (a long
        // task, a renderer the loaded machine starved), a frame or a call of ours runs before the page's own
        // overdue timers: the DOM then looks unchanged only because the page's writes have not had their turn.
        // Chromium runs due timers in the order they fell due, so a timer set then (due after every one
        // overdue) lets the page's run first; a timer of ours set earlier fell due after the page's that
        // were due inside the window. If none writes, the window holds.
        const check = (byTimer = false) => {
          cancel(timer)
          const now = performance.now()
          const fired = late ? late.lastFired() : Number.NEGATIVE_INFINITY
          const left = quietMs - (now - Math.max(changed, cause ?? 0, fired, awaited))
          if (left > 0) timer = later(() => check(true), left)
          // Quiet but not yet drawn: the frame wakes the check.
          else if (!framed) return
          else if (!byTimer) timer = later(() => check(true), 1)
          else {
            const end = lateEnd(now)
            if (end <= now) return finish(true)
            // A timer of ours set for after it runs after the page's, due first; a fired one wakes the check.
            waitedLate = true
            awaited = Math.max(awaited, end)
            timer = later(() => check(true), end - now + 1)
          }
        }
        const cap = later(() => finish(false), maxMs)
        wake = () => check()
        check()
      })
    },
    stop,
  }
}

/**
 * The watcher's source, as an expression: with the document's timer hook
 * (installed then if its init script has not run, as in a page that was open
 * before the session) and the reader of its animations. `ended`: the watcher
 * has no action to wait for, and counts as ended at once.
 */
export function watcherSource(causes: string[], ended: boolean): string {
  const watch = `(${watchInPage})(${JSON.stringify(causes)}, ${lateTimersSource}, ${animationsEndInPage})`
  return ended ? `(() => { const watch = ${watch}; watch.end(); return watch })()` : watch
}

/**
 * An action's watch of the page it acts on: the DOM's quiet is measured from
 * the action (its input, or its last change), not from when the observation
 * begins, so an action that changed nothing is observed sooner, after what is
 * left of the quiet window and a frame. Used at most once; `dispose` disconnects it.
 */
export class ActionWatch {
  readonly page: Page
  /** When the watch began (performance.now() time): a view request started since makes it unfit. */
  readonly startedAt = performance.now()
  readonly #handle: Promise<JSHandle<PageWatch> | undefined>

  /** `causes`: the events that start the quiet window (an action's input, by default). */
  constructor(page: Page, causes: string[] = inputEvents) {
    this.page = page
    // Not awaited by the action: the page runs this before the action's input, which comes after it on the wire.
    this.#handle = (page.evaluateHandle(watcherSource(causes, false)) as Promise<JSHandle<PageWatch>>).catch(
      () => undefined,
    )
  }

  /** The action ended: asks for a frame, without waiting for it. */
  ended(): void {
    void this.#handle.then((handle) => handle?.evaluate((watch) => watch.end())).catch(() => {})
  }

  /**
   * Waits for what is left of the quiet window and for a frame drawn since the
   * action ended. Undefined when the watch cannot answer (the document it
   * watched is gone, the page broke it): the caller waits afresh.
   */
  async settle(quietMs: number, maxMs: number, signal: AbortSignal): Promise<QuietInPage | undefined> {
    try {
      const handle = await this.#handle
      if (!handle) return undefined
      const capMs = Math.max(1, Math.round(maxMs))
      const waiting = handle.evaluate((watch, { quiet, cap }) => watch.settle(quiet, cap), {
        quiet: quietMs,
        cap: capMs,
      })
      return await withDeadline(waiting, maxMs + 500, signal, 'DOM quiet wait')
    } catch (error) {
      if (isAbortError(error) || signal.aborted) throw error
      return undefined
    }
  }

  /**
   * The DOM writes the watch saw by the first frame drawn after the action
   * ended; undefined when it cannot tell (no watcher, the page went away).
   * With `settle`'s count, it tells whether the page changed after that frame.
   */
  async framed(signal: AbortSignal): Promise<number | undefined> {
    try {
      const handle = await this.#handle
      if (!handle) return undefined
      const count = await withDeadline(
        handle.evaluate((watch) => watch.framed()),
        frameWaitMs,
        signal,
        'frame wait',
      )
      return count >= 0 ? count : undefined
    } catch (error) {
      if (isAbortError(error) || signal.aborted) throw error
      return undefined
    }
  }

  /** Disconnects the watcher in the page (settling did already) and lets the handle go. */
  dispose(): void {
    void this.#handle
      .then(async (handle) => {
        await handle?.evaluate((watch) => watch.stop()).catch(() => {})
        await handle?.dispose()
      })
      .catch(() => {})
  }
}
