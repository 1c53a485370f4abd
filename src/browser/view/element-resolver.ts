import type { Locator, Page } from 'playwright-core'
import { isAbortError } from '../../tool.ts'
import { withDeadline } from '../../util/deadline.ts'
import { truncate } from '../../util/text.ts'
import type { ResolvedElement } from '../session/tool-surface.ts'
import { capturePage } from './page-capture.ts'
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
    if (entry) {
      const locator = locatorFor(page, entry.target)
      if (await isPresent(locator, signal)) return { page, locator, entry, label: labelOf(entry) }
    }
  }
  await capturePage(page, registry, { wholePage: true }, signal)
  const entry = registry.get(wanted)
  if (!entry) return missing(registry, wanted)
  const locator = locatorFor(page, entry.target)
  if (!(await isPresent(locator, signal))) return missing(registry, wanted)
  return { page, locator, entry, label: labelOf(entry) }
}

function missing(registry: RefRegistry, ref: string): string {
  if (registry.whyMissing(ref) === 'changed') {
    return `Element ${ref} changed since the page view you acted on: the page replaced it, and the element there now may not be the one you meant. Nothing was done; read the new page view and use its refs.`
  }
  return `Element ${ref} is no longer on the page. Use a ref from the latest page view.`
}

async function isPresent(locator: Locator, signal: AbortSignal): Promise<boolean> {
  try {
    return (await withDeadline(locator.count(), 3000, signal, 'element lookup')) > 0
  } catch (error) {
    if (isAbortError(error)) throw error
    return false
  }
}

function labelOf(entry: RefEntry): string {
  const name = entry.name.replace(/\s+/g, ' ').trim()
  if (!name) return `${entry.role} ${entry.ref}`
  return `${entry.role} '${truncate(name, 60)}'`
}
