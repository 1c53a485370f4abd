import type { Locator, Page } from 'playwright-core'
import { isAbortError } from '../tool.ts'
import { withDeadline } from '../util/deadline.ts'
import { truncate } from '../util/text.ts'
import { capturePage } from './page-capture.ts'
import { locatorFor, type RefEntry, type RefRegistry } from './refs.ts'
import type { ResolvedElement } from './tool-surface.ts'

/**
 * Finds the element behind a stable ref. When the latest mapping no longer
 * reaches it (the DOM was re-rendered, the ref came from `find` or an older
 * view), the page is looked at again and the ref looked up afresh: the same
 * role and name give the same ref, so a re-rendered button is found again.
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
  if (!entry) return `Element ${wanted} is no longer on the page. Use a ref from the latest page view.`
  const locator = locatorFor(page, entry.target)
  if (!(await isPresent(locator, signal))) return `Element ${wanted} is no longer on the page.`
  return { page, locator, entry, label: labelOf(entry) }
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
