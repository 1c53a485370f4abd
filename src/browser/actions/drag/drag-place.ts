import type { ElementHandle } from 'playwright-core'
import { evaluateElement } from '../../view/first-element.ts'

/**
 * Where a drag onto an item of the dragged item's own list should leave it,
 * and where it did. A sortable list (jQuery UI, SortableJS, dnd-kit) moves
 * the dragged item into the slot the pointer rests over once the pointer is
 * past that item's middle in the direction of travel; a person drags onto the
 * item and a little past it, watching the gap open, and looks at the result.
 */

export interface Point {
  x: number
  y: number
}

export interface Box extends Point {
  width: number
  height: number
}

/** An item's place among the items of its list: its drawn siblings of its own tag, 0-based. */
export interface ListPlace {
  index: number
  count: number
}

/**
 * The point a quarter of the drop box past its middle along each axis the
 * drag travels (a vertical list's drag has no sideways part): over the item
 * still, and past the middle whichever half the library tests.
 */
export function pastMiddle(from: Point, box: Box): Point {
  const centre = { x: box.x + box.width / 2, y: box.y + box.height / 2 }
  const along = (distance: number, size: number): number =>
    Math.abs(distance) > size / 4 ? (Math.sign(distance) * size) / 4 : 0
  return {
    x: centre.x + along(centre.x - from.x, box.width),
    y: centre.y + along(centre.y - from.y, box.height),
  }
}

/** The element's place in its list, and the other element's when it is an item of the same list. */
function placesInPage(element: Element, other: unknown): { own: ListPlace; other?: number } | null {
  const parent = element.parentElement
  if (!element.isConnected || !parent) return null
  // The list's items as drawn: a library's hidden template or a lingering placeholder is not one.
  const items = Array.from(parent.children).filter(
    (child) => child.tagName === element.tagName && child.getClientRects().length > 0,
  )
  const index = items.indexOf(element)
  if (index < 0 || items.length < 2) return null
  const own = { index, count: items.length }
  const otherIndex = other instanceof Element ? items.indexOf(other) : -1
  return otherIndex >= 0 ? { own, other: otherIndex } : { own }
}

/** The dragged element's place, and the drop element's index when both are items of one list. */
export async function placesOf(
  source: ElementHandle,
  destination: ElementHandle | undefined,
  signal: AbortSignal,
): Promise<{ own: ListPlace; other?: number } | undefined> {
  const read = await evaluateElement(source, placesInPage, destination ?? null, signal).catch(() => null)
  return read ?? undefined
}

/** The item now at `index` of the dragged element's list: where a second try drops it. */
export async function itemAt(source: ElementHandle, index: number): Promise<ElementHandle | undefined> {
  const handle = await source
    .evaluateHandle((element: Node, wanted) => {
      const parent = element.parentElement
      if (!(element instanceof Element)) return null
      if (!parent) return null
      const items = Array.from(parent.children).filter(
        (child) => child.tagName === element.tagName && child.getClientRects().length > 0,
      )
      return items[wanted] ?? null
    }, index)
    .catch(() => undefined)
  const element = handle?.asElement() ?? undefined
  if (!element) void handle?.dispose().catch(() => {})
  return element
}

/**
 * Resolves once the page's animations have ended (a library sliding the
 * items into their new places), or after ~1 s: the place read before is not
 * where the item comes to rest. True when there were any to wait for.
 */
export async function animationsEnded(element: ElementHandle, signal: AbortSignal): Promise<boolean> {
  const waitInPage = (_: Element): Promise<boolean> =>
    new Promise((resolve) => {
      const started = performance.now()
      let waited = false
      const look = (): void => {
        const running = document.getAnimations().some((animation) => animation.playState === 'running')
        if (!running || performance.now() - started > 1000) resolve(waited)
        else {
          waited = true
          requestAnimationFrame(look)
        }
      }
      // Two frames first: a library starts its animation in the frame after the move.
      requestAnimationFrame(() => requestAnimationFrame(look))
    })
  return evaluateElement(element, waitInPage, undefined, signal).catch(() => false)
}

/** `1st`, `2nd`, `3rd`, `11th`, `22nd`. */
export function ordinal(place: number): string {
  const suffixes: Record<number, string> = { 1: 'st', 2: 'nd', 3: 'rd' }
  const teen = place % 100 >= 11 && place % 100 <= 13
  return `${place}${teen ? 'th' : (suffixes[place % 10] ?? 'th')}`
}
