import { isAbortError } from '../../tool.ts'
import type { ResolvedElement } from '../session/tool-surface.ts'
import { evaluateElement } from '../view/first-element.ts'
import { explainFailure, thrownByPage } from './explain-failure.ts'

/**
 * An element the page shows only while its row or card is hovered (WordPress's row actions, a card's
 * faded tools, a script's mouseenter) is acted on as a person would: the pointer goes over the row
 * first, the element is waited for until it is drawn, then the action runs. Every action that takes a
 * ref passes here (`define-action.ts`), so none meets the element hidden; the row is the one the page
 * scan found (`Scanner.revealerOf`), kept out of the page's reach.
 */

/** How long a row's reveal (a fade, a script's class) may take; the action's own checks run after. */
const shownWithinMs = 1500

interface ShownArgs {
  withinMs: number
  focus: boolean
}

/** Whether the element is drawn where a pointer can reach it: not hidden, not seen through, not parked off the page. */
async function shownInPage(element: Element, { withinMs, focus }: ShownArgs): Promise<boolean> {
  // A row shown on focus rather than on hover (`:focus-within`) shows once its element has the focus.
  if (focus && element instanceof HTMLElement) element.focus({ preventScroll: true })
  const shown = (): boolean => {
    // Gone since the lookup: the action itself says so.
    if (!element.isConnected) return true
    const rect = element.getBoundingClientRect()
    if (rect.width <= 0 || rect.height <= 0) return false
    const style = getComputedStyle(element)
    if (style.visibility !== 'visible' || style.pointerEvents === 'none') return false
    for (let up: Element | null = element; up; up = up.parentElement)
      if (Number(getComputedStyle(up).opacity) < 0.05) return false
    // Parked off the page (WordPress's `left: -9999em`): nowhere the document scrolls to.
    return rect.right + scrollX > 0 && rect.bottom + scrollY > 0
  }
  const until = performance.now() + withinMs
  while (!shown()) {
    if (performance.now() > until) return false
    // A timer, not an animation frame: a tab in the background gets no frames.
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return true
}

/**
 * Hovers the row that shows `found`, and waits for it to be shown; undefined when it is (or needs no
 * hover), else the failed result's text.
 */
export async function revealByHover(
  found: ResolvedElement,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<string | undefined> {
  const row = found.revealer
  if (!row) return undefined
  try {
    await row.hover({ timeout: timeoutMs, signal })
    if (await evaluateElement(found.element, shownInPage, { withinMs: shownWithinMs, focus: false }, signal))
      return undefined
    if (await evaluateElement(found.element, shownInPage, { withinMs: shownWithinMs, focus: true }, signal))
      return undefined
  } catch (error) {
    if (isAbortError(error) || signal.aborted) throw error
    // The check runs among the page's scripts, which can break what it uses: the action's own checks decide.
    if (thrownByPage(error)) return undefined
    return `Could not hover the row that shows ${found.label}: ${explainFailure(error)}`
  }
  return `Hovering its row did not show ${found.label}: the page keeps it hidden. Read the new page view.`
}
