import type { ElementHandle } from 'playwright-core'
import { isAbortError, sleep } from '../../tool.ts'
import { evaluateElement } from '../view/first-element.ts'
import { thrownByPage } from './explain-failure.ts'

/**
 * Why a click would not reach an element, found in one look rather than by
 * waiting out Playwright's actionability timeout: disabled, hidden, or covered
 * by another element (named, so the model can deal with it).
 */
export interface ClickCheck {
  state: 'ok' | 'gone' | 'disabled' | 'hidden' | 'covered'
  by?: string
  /**
   * Where in its box to click (from its top-left corner), when a scrolling
   * ancestor or the window shows only part of it: the middle of that part,
   * the point the check found free.
   */
  position?: { x: number; y: number }
}

function checkInPage(element: Element): ClickCheck {
  /**
   * The part of `rect` that the window and every ancestor clipping its overflow let show (their
   * padding box, without their scrollbars), or null when none does. Defined inside: this runs in the page.
   * Only the ancestors on the chain of containing blocks clip (CSS 2 §11.1.1): a fixed panel escapes the
   * scrolling editor around it, a positioned menu the overflow-hidden card between it and its positioned
   * ancestor, as the browser draws and hit-tests them.
   */
  function visiblePart(
    target: Element,
    rect: DOMRect,
  ): { x: number; y: number; width: number; height: number } | null {
    let left = Math.max(0, rect.left)
    let top = Math.max(0, rect.top)
    let right = Math.min(innerWidth, rect.right)
    let bottom = Math.min(innerHeight, rect.bottom)
    // The tree as drawn: an element slotted into a shadow root (a web component's option) is clipped by
    // the listbox around its slot, not by the host it is a child of.
    const up = (node: Element): Element | null =>
      node.assignedSlot ??
      node.parentElement ??
      (node.parentNode instanceof ShadowRoot ? node.parentNode.host : null)
    // What makes a box the containing block of fixed descendants (CSS Transforms, Filter Effects, Containment).
    const holdsFixed = (style: CSSStyleDeclaration): boolean =>
      style.transform !== 'none' ||
      style.perspective !== 'none' ||
      style.filter !== 'none' ||
      style.backdropFilter !== 'none' ||
      style.containerType !== 'normal' ||
      /paint|layout|strict|content/.test(style.contain) ||
      /transform|perspective|filter/.test(style.willChange)
    // The position of the box whose containing block is sought: the target's, then each containing block's.
    let position = getComputedStyle(target).position
    for (
      let node = up(target);
      node && node !== document.documentElement && node !== document.body;
      node = up(node)
    ) {
      const style = getComputedStyle(node)
      const escapes =
        position === 'fixed'
          ? !holdsFixed(style)
          : position === 'absolute' && style.position === 'static' && !holdsFixed(style)
      if (escapes) continue
      position = style.position
      if (style.overflowX === 'visible' && style.overflowY === 'visible') continue
      const box = node.getBoundingClientRect()
      if (style.overflowX !== 'visible') {
        left = Math.max(left, box.left + node.clientLeft)
        right = Math.min(right, box.left + node.clientLeft + node.clientWidth)
      }
      if (style.overflowY !== 'visible') {
        top = Math.max(top, box.top + node.clientTop)
        bottom = Math.min(bottom, box.top + node.clientTop + node.clientHeight)
      }
    }
    return right - left < 1 || bottom - top < 1
      ? null
      : { x: left, y: top, width: right - left, height: bottom - top }
  }

  // The element as the lookup found it: a page that re-rendered it since has taken it out.
  if (!element.isConnected) return { state: 'gone' }
  const html = element as HTMLElement & { disabled?: boolean }
  if (html.disabled === true || element.getAttribute('aria-disabled') === 'true') return { state: 'disabled' }
  let rect = element.getBoundingClientRect()
  const style = getComputedStyle(element)
  // An element with display: contents has no box of its own; Playwright clicks its content.
  if (style.display === 'contents') return { state: 'ok' }
  if (rect.width === 0 || rect.height === 0 || style.visibility !== 'visible') return { state: 'hidden' }
  if (rect.bottom < 0 || rect.top > innerHeight || rect.right < 0 || rect.left > innerWidth) {
    element.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' })
    rect = element.getBoundingClientRect()
  }
  // Scrolled into view within every clipping ancestor too, as Playwright's own actions are: a row half under
  // its grid's scrollbar would otherwise take the click on the scrollbar.
  let shown = visiblePart(element, rect)
  if (!shown || shown.width < rect.width - 1 || shown.height < rect.height - 1) {
    element.scrollIntoView({ block: 'nearest', inline: 'nearest', behavior: 'instant' })
    rect = element.getBoundingClientRect()
    shown = visiblePart(element, rect)
  }
  if (!shown) return { state: 'hidden' }
  const x = shown.x + shown.width / 2
  const y = shown.y + shown.height / 2
  const clipped = shown.width < rect.width - 1 || shown.height < rect.height - 1
  const position = clipped ? { position: { x: x - rect.left, y: y - rect.top } } : {}
  let hit = document.elementFromPoint(x, y)
  while (hit?.shadowRoot) {
    const inner = hit.shadowRoot.elementFromPoint(x, y)
    if (!inner || inner === hit) break
    hit = inner
  }
  if (!hit) return { state: 'ok', ...position }
  const up = (node: Node): Node | null =>
    node.parentNode instanceof ShadowRoot ? node.parentNode.host : node.parentNode
  const contains = (outer: Node, inner: Node): boolean => {
    for (let node: Node | null = inner; node; node = up(node)) if (node === outer) return true
    return false
  }
  if (contains(element, hit) || contains(hit, element)) return { state: 'ok', ...position }
  if (hit instanceof HTMLLabelElement && hit.control === element) return { state: 'ok', ...position }
  const describe = (node: Element): string => {
    const tag = node.tagName.toLowerCase()
    const id = node.id ? `#${node.id}` : ''
    const classes = (node.getAttribute('class') ?? '')
      .split(/\s+/)
      .filter(Boolean)
      .slice(0, 2)
      .map((name) => `.${name}`)
      .join('')
    const label = (node.getAttribute('aria-label') || node.textContent || '').replace(/\s+/g, ' ').trim()
    return `${tag}${id}${classes}${label ? ` "${label.slice(0, 50)}"` : ''}`
  }
  let by = describe(hit)
  const dialogs = 'dialog, [role=dialog], [role=alertdialog], [aria-modal=true]'
  const dialog = hit.closest(dialogs) ?? hit.querySelector(dialogs)
  if (dialog && dialog !== hit) {
    const title = dialog.getAttribute('aria-label') ?? dialog.querySelector('h1, h2, h3')?.textContent ?? ''
    const named = title.trim() ? `dialog "${title.trim().slice(0, 50)}"` : 'a dialog'
    by += hit.contains(dialog) ? `, which holds ${named}` : `, in ${named}`
  }
  return { state: 'covered', by }
}

/** Checks a few times over ~1 s when covered, since overlays often fade out on their own. */
export async function checkClickable(element: ElementHandle, signal: AbortSignal): Promise<ClickCheck> {
  let check: ClickCheck = { state: 'ok' }
  for (let round = 0; round < 4; round++) {
    try {
      check = await evaluateElement(element, checkInPage, undefined, signal)
    } catch (error) {
      if (isAbortError(error) || signal.aborted || !thrownByPage(error)) throw error
      // The check runs among the page's own scripts, which can break what it
      // uses (getComputedStyle…): then Playwright's own checks, run apart
      // from them, decide alone.
      return { state: 'ok' }
    }
    if (check.state !== 'covered') return check
    await sleep(300, signal)
  }
  return check
}

export function checkFailure(check: ClickCheck): string | undefined {
  if (check.state === 'gone') return 'the page removed it since the page view; read the new view'
  if (check.state === 'disabled') return 'it is disabled'
  if (check.state === 'hidden') return 'it is not visible (zero size or hidden)'
  if (check.state === 'covered')
    return `it is covered by ${check.by ?? 'another element'}; close or dismiss that first`
  return undefined
}
