import type { ElementHandle, Page } from 'playwright-core'
import { isAbortError } from '../../tool.ts'
import { withDeadline } from '../../util/deadline.ts'
import { truncate } from '../../util/text.ts'
import type { ResolvedElement } from '../session/tool-surface.ts'
import { firstElement } from './first-element.ts'
import { capturePage, frameOf } from './page-capture.ts'
import { locatorFor, type RefEntry, type RefRegistry } from './stable-refs.ts'

/**
 * Finds the element behind a stable ref. When the latest mapping no longer
 * reaches it (the DOM was re-rendered, the ref came from `find` or an older
 * view), the page is looked at again and the ref looked up afresh. A ref only
 * ever names one element (see `ref-assignment.ts`): when the element it named
 * was replaced by one the page view cannot vouch is the same, the lookup
 * refuses rather than act on a look-alike, and says so. Every browser action
 * resolves its ref here, so none can hit another element than the one the
 * model saw.
 */
export async function resolveRef(
  page: Page,
  registry: RefRegistry,
  ref: string,
  signal: AbortSignal,
): Promise<ResolvedElement | string> {
  const wanted = ref
    .trim()
    .replace(/^\[?ref=/, '')
    .replace(/\]$/, '')
  if (registry.page === page) {
    const entry = registry.get(wanted)
    const found = entry && (await reach(page, registry, entry, signal))
    if (found) return found
  }
  await capturePage(page, registry, { wholePage: true }, signal)
  const entry = registry.get(wanted)
  if (!entry) return missing(registry, wanted)
  return (await reach(page, registry, entry, signal)) ?? missing(registry, wanted)
}

/** The element behind an entry of the latest capture, or undefined when it is not there (any more). */
async function reach(
  page: Page,
  registry: RefRegistry,
  entry: RefEntry,
  signal: AbortSignal,
): Promise<ResolvedElement | undefined> {
  const locator = locatorFor(page, entry.target)
  const label = labelOf(entry)
  if (entry.target.kind === 'aria') {
    const element = await firstElement(locator, signal)
    return element ? withRevealer(registry, { page, locator, entry, label, element }, signal) : undefined
  }
  // A tagged element is the one the page scan remembers for the mark, not whichever element carries
  // the attribute now (the page can move it): the scanner puts the mark back on its own element, and
  // the locator must then find that element and no other.
  const { tag, frameAriaRef } = entry.target
  const frame = frameAriaRef ? await frameOf(page, frameAriaRef, signal) : page.mainFrame()
  const handle = frame && (await registry.scanners.pin(frame, tag, signal).catch(rethrowAbort))
  if (!handle) return undefined
  const exact = await withDeadline(
    locator.evaluateAll((found, own) => found.length === 1 && found[0] === own, handle),
    3000,
    signal,
    'element lookup',
  ).catch(rethrowAbort)
  if (!exact) {
    void handle.dispose().catch(() => {})
    return undefined
  }
  return withRevealer(registry, { page, locator, entry, label, handle, element: handle }, signal)
}

/** An element shown only on hover comes with the row or card to hover first, as the scan found it. */
async function withRevealer(
  registry: RefRegistry,
  found: ResolvedElement,
  signal: AbortSignal,
): Promise<ResolvedElement> {
  if (!found.entry.onHover) return found
  const frame = await found.element.ownerFrame().catch(rethrowAbort)
  // The lookup found an element (a locator finds nothing else): its handle is typed for any node.
  const element = found.element as ElementHandle<Element>
  const revealer = frame && (await registry.scanners.revealer(frame, element, signal).catch(rethrowAbort))
  return revealer ? { ...found, revealer } : found
}

function rethrowAbort(error: unknown): undefined {
  if (isAbortError(error)) throw error
  return undefined
}

function missing(registry: RefRegistry, ref: string): string {
  if (registry.whyMissing(ref) === 'changed') {
    return `Element ${ref} changed since the page view you acted on: the page replaced it, and the element there now may not be the one you meant. Nothing was done; read the new page view and use its refs.`
  }
  return `Element ${ref} is no longer on the page. Use a ref from the latest page view.`
}

function labelOf(entry: RefEntry): string {
  const name = entry.name.replace(/\s+/g, ' ').trim()
  if (!name) return `${entry.role} ${entry.ref}`
  return `${entry.role} '${truncate(name, 60)}'`
}
