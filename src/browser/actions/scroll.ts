import type { Locator, Page } from 'playwright-core'
import { z } from 'zod'
import { failed, isAbortError, ok } from '../../tool.ts'
import { withDeadline } from '../../util/deadline.ts'
import type { BrowserToolSurface } from '../session/tool-surface.ts'
import { type BrowserActionDescriptor, defineBrowserTool } from './define-action.ts'
import { thrownByPage } from './explain-failure.ts'

type Direction = 'up' | 'down' | 'left' | 'right'

interface ScrollOutcome {
  /** What scrolled: "the page" or a description of the scrolled element. */
  target: string
  moved: number
  /** Where the scrolled element stands afterwards, and its content's length, in CSS pixels along the axis. */
  position: number
  extent: number
  /** Screens of content before and after the visible part, along the scrolled axis. */
  before: number
  after: number
  /** For a list: its items out of sight on each side (those the page has rendered). */
  items?: string
  /** The page undid the scripted scroll, so the mouse wheel scrolled it. */
  wheeled?: boolean
}

interface ScrollArgs {
  direction: Direction
  /** 0 measures where the target stands without scrolling it. */
  pages: number
  /** Animation frames to wait first, for the page's own reaction to a scroll to be drawn. */
  frames: number
}

/**
 * Scrolls the nearest scrollable ancestor of `start` (the element itself
 * included), else the page, else the largest scrollable element on screen
 * (apps whose body does not scroll). Runs in the page.
 */
async function scrollInPage(start: Element, args: ScrollArgs): Promise<ScrollOutcome> {
  // A page the browser does not draw (a background tab) gets no frames: a timer stands in for one.
  for (let frame = 0; frame < args.frames; frame++)
    await new Promise((resolve) => {
      requestAnimationFrame(resolve)
      setTimeout(resolve, 100)
    })
  const vertical = args.direction === 'up' || args.direction === 'down'
  const sign = args.direction === 'up' || args.direction === 'left' ? -1 : 1
  const page = document.scrollingElement ?? document.documentElement
  const canScroll = (element: Element): boolean => {
    const style = getComputedStyle(element)
    const overflow = vertical ? style.overflowY : style.overflowX
    const room = vertical
      ? element.scrollHeight - element.clientHeight
      : element.scrollWidth - element.clientWidth
    return room > 1 && (element === page || /(auto|scroll|overlay)/.test(overflow))
  }
  const up = (node: Element): Element | null =>
    node.parentElement ?? (node.parentNode instanceof ShadowRoot ? node.parentNode.host : null)
  let target: Element | null = null
  // A widget (a listbox, a grid) often scrolls its content in an element inside it: the largest one that scrolls.
  if (!canScroll(start) && start !== page && start !== document.documentElement) {
    let best = 0
    for (const inner of Array.from(start.querySelectorAll('*')).slice(0, 5000)) {
      const rect = inner.getBoundingClientRect()
      if (rect.width * rect.height > best && canScroll(inner)) {
        best = rect.width * rect.height
        target = inner
      }
    }
  }
  for (let node: Element | null = start; node && !target; node = up(node)) if (canScroll(node)) target = node
  if (!target && canScroll(page)) target = page
  if (!target) {
    let best = 0
    for (const element of Array.from(document.querySelectorAll('body *'))) {
      const rect = element.getBoundingClientRect()
      const area = rect.width * rect.height
      if (area > best && rect.bottom > 0 && rect.top < innerHeight && canScroll(element)) {
        best = area
        target = element
      }
    }
  }
  const describe = (element: Element | null): string => {
    if (!element || element === page) return 'the page'
    const label =
      element.getAttribute('aria-label') ?? element.getAttribute('role') ?? element.tagName.toLowerCase()
    return `the scrollable ${label}`
  }
  if (!target) return { target: 'the page', moved: 0, position: 0, extent: 0, before: 0, after: 0 }
  const isPage = target === page
  const viewSize = vertical
    ? isPage
      ? innerHeight
      : target.clientHeight
    : isPage
      ? innerWidth
      : target.clientWidth
  const position = () => (vertical ? target.scrollTop : target.scrollLeft)
  const startAt = position()
  const delta = sign * Math.round(args.pages * viewSize * 0.9)
  if (delta !== 0)
    target.scrollBy({ top: vertical ? delta : 0, left: vertical ? 0 : delta, behavior: 'instant' })
  const end = position()
  const total = vertical ? target.scrollHeight : target.scrollWidth
  // What a list's reader wants to know: how many of its items are out of sight on each side.
  let items: string | undefined
  if (!isPage && vertical) {
    const box = target.getBoundingClientRect()
    const top = box.top + target.clientTop
    const bottom = top + target.clientHeight
    const found = target.querySelectorAll(
      '[role=option],[role=row],[role=listitem],[role=treeitem],[role^=menuitem],li,tr',
    )
    let before = 0
    let after = 0
    for (const item of Array.from(found)) {
      const rect = item.getBoundingClientRect()
      if (rect.height === 0) continue
      if (rect.bottom <= top + 1) before++
      else if (rect.top >= bottom - 1) after++
    }
    if (found.length > 0) items = `${before} items above, ${after} below`
  }
  return {
    ...(items ? { items } : {}),
    target: describe(target),
    moved: end - startAt,
    position: end,
    extent: total,
    before: end / viewSize,
    after: Math.max(0, total - end - viewSize) / viewSize,
  }
}

export const scrollAction: BrowserActionDescriptor = {
  name: 'scroll',
  description: 'Scroll the page by `pages` screens (default 1), or the scrollable area around `ref`.',
  effect: 'readOnly',
  docs: {
    input: "`{ direction: 'up'\\|'down'\\|'left'\\|'right', pages?: number, ref? }`",
    does: "scrolls the page by screens (default 1, at most 20), or with `ref` the scrollable area holding that element (a `[scrollable]` container's own ref scrolls it; a widget's ref, a listbox or grid whose scroller is inside it, scrolls that scroller); for a list it says how many items are above and below. A page that scrolls back what a script scrolled (Radix Select brings its focused option back into view) is scrolled with the mouse wheel over the area, as a person would, and the result says so",
  },
  stuck: 'changes',
  record: { element: 'optional', outcome: true },
  playwright: ({ input }, { target }) => {
    const pages = typeof input.pages === 'number' ? input.pages : 1
    const sign = input.direction === 'up' || input.direction === 'left' ? -1 : 1
    const horizontal = input.direction === 'left' || input.direction === 'right'
    const delta = Math.round(sign * pages * 600)
    const wheel = `await page.mouse.wheel(${horizontal ? delta : 0}, ${horizontal ? 0 : delta})`
    // A scrollable container scrolls under the mouse: the wheel turns over it.
    return target ? [`await ${target}.hover()`, wheel] : [wheel]
  },
}

export function scrollTool(session: BrowserToolSurface) {
  return defineBrowserTool(session, {
    action: scrollAction,
    input: z.object({
      direction: z.enum(['up', 'down', 'left', 'right']),
      pages: z.number().positive().max(20).optional(),
      ref: z.string().optional(),
    }),
    // An empty ref means no ref: the page scrolls.
    target: ({ ref }) => ref || undefined,
    run: async ({ direction, pages = 1 }, ctx, found) => {
      const page = await session.activePage()
      const start = found ? found.locator : page.locator(':root')
      // The page itself is scrolled from its root in one evaluation, an element through the handle its
      // lookup found (a locator's evaluate would first poll for it). The arguments are an enum and numbers.
      const inPage = (args: ScrollArgs) =>
        withDeadline(
          found
            ? found.element.evaluate(scrollInPage, args)
            : page
                .mainFrame()
                .evaluate<ScrollOutcome>(
                  `(${scrollInPage})(document.documentElement, ${JSON.stringify(args)})`,
                ),
          3000,
          ctx.signal,
          'scroll',
        )
      let outcome: ScrollOutcome
      try {
        outcome = await inPage({ direction, pages, frames: 0 })
        // Only a widget scrolls back what a script scrolled (a list keeping its focused option in view); the
        // two frames this check waits would cost every scroll of the page itself (~30 ms a step).
        if (outcome.moved !== 0 && outcome.target !== 'the page') {
          const measure = (frames: number) => inPage({ direction, pages: 0, frames })
          outcome = await held(outcome, { page, start, direction, measure })
        }
      } catch (error) {
        if (isAbortError(error) || ctx.signal.aborted || !thrownByPage(error)) throw error
        // The page broke what the in-page scroll uses: the mouse wheel does not depend on it.
        return wheel(page, start, direction, pages)
      }
      const axis =
        direction === 'up' || direction === 'down' ? ['above', 'below'] : ['to the left', 'to the right']
      const screens = `${outcome.before.toFixed(1)} screens ${axis[0]}, ${outcome.after.toFixed(1)} ${axis[1]}`
      const position = outcome.items ? `${screens}; ${outcome.items}` : screens
      if (outcome.moved === 0 && outcome.wheeled) {
        return failed(
          `Could not scroll ${direction}: the page scrolls ${outcome.target} back, by script and by the mouse wheel (${position}).`,
        )
      }
      if (outcome.moved === 0) {
        const edge = { up: 'top', down: 'bottom', left: 'left edge', right: 'right edge' }[direction]
        return failed(
          `Could not scroll ${direction}: ${outcome.target} is already at the ${edge} (${position}).`,
        )
      }
      const amount = Math.abs(outcome.moved)
      const how = outcome.wheeled ? ' with the mouse wheel (the page undid a scripted scroll)' : ''
      return ok(`Scrolled ${outcome.target} ${direction}${how} by ${amount}px; now ${position}.`)
    },
  })
}

/**
 * The scroll as it stands once the page has drawn its reaction. A page may undo a scripted scroll: Radix
 * Select scrolls its focused option back into view when its scroll-up button appears. A person's wheel
 * over the list moves its focus off that option first, so the wheel is what scrolls such a page; where
 * the wheel leaves the element is measured, not assumed.
 */
async function held(
  scrolled: ScrollOutcome,
  on: {
    page: Page
    start: Locator
    direction: Direction
    measure: (frames: number) => Promise<ScrollOutcome>
  },
): Promise<ScrollOutcome> {
  const { page, start, direction, measure } = on
  const origin = scrolled.position - scrolled.moved
  // Undone: back most of the way to where it started, its content unchanged (content loaded on scroll and
  // the browser's scroll anchoring move the position too, and scrolling again then would overshoot).
  const undoneAt = (outcome: ScrollOutcome) =>
    outcome.extent === scrolled.extent && Math.abs(outcome.position - origin) < Math.abs(scrolled.moved) / 2
  let now = await measure(2)
  // The page's reaction is a render it schedules, which a busy machine can put past the first two frames
  // (once in about twelve whole test runs here): a second look a few frames on catches it.
  if (!undoneAt(now)) now = await measure(3)
  if (!undoneAt(now)) return scrolled
  await turnWheel(page, start, scrolled.moved, direction)
  let settled = await wheelLanded(now, measure)
  // Part of the wheel's scroll can be undone as well, when the page's reaction lands late (once in a whole
  // test run: Radix left 4 of 20 options scrolled): a person turns the wheel again for the rest.
  const wanted = origin + scrolled.moved
  const more = (outcome: ScrollOutcome) => (scrolled.moved > 0 ? outcome.after > 0 : outcome.before > 0)
  // Only while the wheel moves it: a page that takes back every scroll is told as such, at once.
  let turned = now
  for (let turn = 0; turn < 2 && Math.abs(settled.position - turned.position) > 1; turn++) {
    if (Math.abs(wanted - settled.position) <= 1 || !more(settled)) break
    turned = settled
    await turnWheel(page, start, wanted - settled.position, direction)
    settled = await wheelLanded(settled, measure)
  }
  return { ...settled, moved: settled.position - origin, wheeled: true }
}

/** Where a turn of the wheel from `before` came to rest: its scroll lands over a few frames. */
async function wheelLanded(
  before: ScrollOutcome,
  measure: (frames: number) => Promise<ScrollOutcome>,
): Promise<ScrollOutcome> {
  let last = before
  for (let read = 0; read < 20; read++) {
    const next = await measure(3)
    if (Math.abs(next.position - last.position) <= 1 && Math.abs(next.position - before.position) > 1) break
    last = next
  }
  return measure(0)
}

/** Moves the pointer over `start` (or the viewport's middle) and turns the wheel by `delta` pixels along the axis. */
async function turnWheel(page: Page, start: Locator, delta: number, direction: Direction): Promise<void> {
  const viewport = page.viewportSize() ?? { width: 1280, height: 720 }
  const box = await start.boundingBox({ timeout: 1000 }).catch(() => null)
  const x = box ? box.x + Math.min(box.width, viewport.width) / 2 : viewport.width / 2
  const y = box ? Math.max(0, box.y) + Math.min(box.height, viewport.height) / 2 : viewport.height / 2
  await page.mouse.move(
    Math.max(1, Math.min(x, viewport.width - 1)),
    Math.max(1, Math.min(y, viewport.height - 1)),
  )
  const vertical = direction === 'up' || direction === 'down'
  await page.mouse.wheel(vertical ? 0 : delta, vertical ? delta : 0)
}

/** Scrolls with the mouse wheel over `start` (or the viewport's middle): trusted input, whatever the page's scripts did. */
async function wheel(page: Page, start: Locator, direction: Direction, pages: number) {
  const viewport = page.viewportSize() ?? { width: 1280, height: 720 }
  const vertical = direction === 'up' || direction === 'down'
  const sign = direction === 'up' || direction === 'left' ? -1 : 1
  await turnWheel(
    page,
    start,
    sign * Math.round(pages * (vertical ? viewport.height : viewport.width) * 0.9),
    direction,
  )
  return ok(
    `Scrolled ${direction} with the mouse wheel (the page's scripts hide how far); read the new page view.`,
  )
}
