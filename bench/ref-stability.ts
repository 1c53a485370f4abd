// Ref stability for bench/page-view.bench.ts: a page is changed 10 times the
// way pages change under an agent (insert, remove, reorder, scroll, hover,
// expand, relabel, re-render, scroll back, collapse), a page view is built after
// each, and every ref shown is traced to its DOM element. An element seen with
// a ref before and after a change should keep it; a ref must never move onto
// another element while the one it named is still on the page.
import type { Page } from 'playwright-core'
import type { TabInfo } from '../src/browser/browser-session.ts'
import { buildPageView } from '../src/browser/view/page-view.ts'
import { locatorFor, type RefRegistry } from '../src/browser/view/stable-refs.ts'

export const mutations = [
  'insert',
  'remove',
  'reorder',
  'scroll',
  'hover',
  'expand',
  'relabel',
  'rerender',
  'scroll back',
  'collapse',
] as const
type Mutation = (typeof mutations)[number]

export interface RefStability {
  /** Mutations that found something to change on the page. */
  applied: number
  /** Elements shown with a ref both before and after a mutation. */
  compared: number
  /** Of those, the ones whose ref stayed the same. */
  kept: number
  /** Refs that named an element still on the page and now name another one (target 0). */
  moved: number
  /** Refs whose element left the page and that now name a look-alike re-rendered in its place. */
  followed: number
}

interface BenchState {
  __benchPrevious?: Map<string, Element>
  __benchCurrent?: Map<string, Element>
  __benchExpanded?: Element
}

/** Runs in the page: applies one mutation near the top of the viewport; false when nothing fit. */
function mutate(kind: Mutation): boolean {
  const state = window as unknown as BenchState
  const onScreen = (element: Element) => {
    const rect = element.getBoundingClientRect()
    return rect.width > 0 && rect.height > 0 && rect.bottom > 0 && rect.top < innerHeight
  }
  const interactive = 'a[href],button,input,select,textarea,[role=button],[role=link]'
  const item = () =>
    Array.from(document.querySelectorAll('li,tr,article')).find(
      (element) => onScreen(element) && element.querySelector(interactive) !== null,
    )
  switch (kind) {
    case 'insert': {
      const target = item()
      target?.before(target.cloneNode(true))
      return target !== undefined
    }
    case 'remove': {
      const target = item()
      target?.remove()
      return target !== undefined
    }
    case 'reorder': {
      const list = Array.from(document.querySelectorAll('ul,ol,tbody')).find(
        (element) => onScreen(element) && element.children.length > 1,
      )
      if (list?.firstElementChild) list.append(list.firstElementChild)
      return list !== undefined
    }
    case 'scroll':
      scrollBy(0, innerHeight * 0.8)
      return true
    case 'scroll back':
      scrollTo(0, 0)
      return true
    case 'expand': {
      const details = Array.from(document.querySelectorAll('details:not([open])')).find(onScreen)
      if (details) {
        ;(details as HTMLDetailsElement).open = true
        state.__benchExpanded = details
        return true
      }
      const hidden = Array.from(document.querySelectorAll('ul,ol,div,nav')).find(
        (element) =>
          getComputedStyle(element).display === 'none' &&
          element.querySelector('a[href],button') !== null &&
          element.parentElement !== null &&
          onScreen(element.parentElement),
      ) as HTMLElement | undefined
      if (!hidden) return false
      hidden.style.display = 'block'
      state.__benchExpanded = hidden
      return true
    }
    case 'collapse': {
      const expanded = state.__benchExpanded
      if (!expanded) return false
      if (expanded instanceof HTMLDetailsElement) expanded.open = false
      else (expanded as HTMLElement).style.display = 'none'
      return true
    }
    case 'relabel': {
      const control = Array.from(document.querySelectorAll('a[href],button')).find(
        (element) => onScreen(element) && /\S/.test(element.textContent ?? ''),
      )
      const text = control
        ? document
            .createTreeWalker(control, NodeFilter.SHOW_TEXT, (node) =>
              /\S/.test(node.nodeValue ?? '') ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_SKIP,
            )
            .nextNode()
        : null
      if (!text) return false
      text.nodeValue = `${text.nodeValue} (1)`
      return true
    }
    case 'rerender': {
      const list = Array.from(document.querySelectorAll('ul,ol,tbody')).find(
        (element) => onScreen(element) && element.querySelector(interactive) !== null,
      )
      if (!list) return false
      // The same markup parsed anew: every element in the list becomes a new node.
      const markup = list.innerHTML
      list.innerHTML = markup
      return true
    }
    case 'hover':
      return false
  }
}

/** Runs in the page: compares the ref → element maps before and after a mutation. */
function compare(): { compared: number; kept: number; moved: number; followed: number } {
  const state = window as unknown as BenchState
  const before = state.__benchPrevious ?? new Map<string, Element>()
  const after = state.__benchCurrent ?? new Map<string, Element>()
  const refBefore = new Map<Element, string>()
  for (const [ref, element] of before) refBefore.set(element, ref)
  let compared = 0
  let kept = 0
  let moved = 0
  let followed = 0
  for (const [ref, element] of after) {
    const previousRef = refBefore.get(element)
    if (previousRef !== undefined) {
      compared++
      if (previousRef === ref) kept++
    }
    const previousElement = before.get(ref)
    if (previousElement && previousElement !== element) {
      if (previousElement.isConnected) moved++
      else followed++
    }
  }
  state.__benchPrevious = after
  state.__benchCurrent = new Map()
  return { compared, kept, moved, followed }
}

/** Builds a view and records, in the page, which element each ref it shows names. */
async function look(page: Page, registry: RefRegistry, tabs: TabInfo[]): Promise<void> {
  const signal = new AbortController().signal
  const view = await buildPageView(page, registry, { tabs }, signal)
  await page.evaluate(() => {
    ;(window as unknown as BenchState).__benchCurrent = new Map()
  })
  const refs = [...new Set([...view.text.matchAll(/\[ref=(\w+)\]/g)].map((match) => match[1] ?? ''))]
  await Promise.all(
    refs.map(async (ref) => {
      const entry = registry.get(ref)
      if (!entry) return
      await locatorFor(page, entry.target)
        .evaluate(
          (element, name) => (window as unknown as BenchState).__benchCurrent?.set(name, element),
          ref,
          { timeout: 2000 },
        )
        .catch(() => {})
    }),
  )
}

export async function refStability(
  page: Page,
  registry: RefRegistry,
  tabs: TabInfo[],
): Promise<RefStability> {
  const totals: RefStability = { applied: 0, compared: 0, kept: 0, moved: 0, followed: 0 }
  await look(page, registry, tabs)
  await page.evaluate(compare)
  for (const kind of mutations) {
    let applied = false
    if (kind === 'hover') {
      const box = await page
        .locator('a[href]:visible, button:visible')
        .first()
        .boundingBox({ timeout: 1000 })
        .catch(() => null)
      if (box) {
        await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2)
        applied = true
      }
    } else {
      applied = await page.evaluate(mutate, kind).catch(() => false)
    }
    if (!applied) continue
    totals.applied++
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 30))))
    await look(page, registry, tabs)
    const figures = await page.evaluate(compare)
    totals.compared += figures.compared
    totals.kept += figures.kept
    totals.moved += figures.moved
    totals.followed += figures.followed
  }
  return totals
}
