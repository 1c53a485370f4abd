import type { Page } from 'playwright-core'
import { isAbortError } from '../../tool.ts'
import { withDeadline } from '../../util/deadline.ts'

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
 * navigation): 'gone'. Inline style writes are not changes: animations make
 * them every frame and they do not change what the view shows.
 */
export async function waitForDomQuiet(
  page: Page,
  quietMs: number,
  maxMs: number,
  signal: AbortSignal,
): Promise<DomQuiet> {
  try {
    // The page's own scripts can break what the wait relies on: the deadline ends it whatever they did.
    const waiting = page.evaluate(quietInPage, { quietMs, maxMs: Math.max(1, Math.round(maxMs)) })
    const { quiet, loaded } = await withDeadline(waiting, maxMs + 500, signal, 'DOM quiet wait')
    return { state: quiet ? 'quiet' : 'busy', loaded }
  } catch (error) {
    if (isAbortError(error) || signal.aborted) throw error
    const gone = page.isClosed() || /context was destroyed|navigat/i.test(String(error))
    return { state: gone ? 'gone' : 'busy', loaded: false }
  }
}

/** Runs in the page: quiet is true once quiet, false at `maxMs`. */
function quietInPage({
  quietMs,
  maxMs,
}: {
  quietMs: number
  maxMs: number
}): Promise<{ quiet: boolean; loaded: boolean }> {
  return new Promise((resolve) => {
    // A hidden tab draws no frames: there only the quiet window counts.
    let framed = document.visibilityState === 'hidden'
    let timer: ReturnType<typeof setTimeout> | undefined
    const end = (quiet: boolean) => {
      observer.disconnect()
      clearTimeout(timer)
      clearTimeout(cap)
      resolve({ quiet, loaded: document.readyState === 'complete' })
    }
    const arm = () => {
      clearTimeout(timer)
      timer = setTimeout(() => (framed ? end(true) : arm()), quietMs)
    }
    const observer = new MutationObserver((records) => {
      if (records.some((record) => record.type !== 'attributes' || record.attributeName !== 'style')) arm()
    })
    observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true })
    const cap = setTimeout(() => end(false), maxMs)
    requestAnimationFrame(() => {
      framed = true
    })
    arm()
  })
}
