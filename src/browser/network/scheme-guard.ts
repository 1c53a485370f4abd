import type { Frame, Page } from 'playwright-core'

/**
 * Top-level pages a run may not show, whoever opens them. navigate, open_tab
 * and startUrl check before they go; Chromium itself refuses file:, chrome:,
 * view-source: and data: top-level navigations started by a page. A page can
 * still put a blob: URL (or, through a popup, a data: one) in a tab: this
 * watch sends such a tab back to about:blank as soon as it commits.
 */

/** The refused scheme of `url`, or undefined when it is not refused (http:, https:, about:blank). */
export function refusedScheme(url: string): string | undefined {
  const scheme = /^([a-z][a-z0-9+.-]*:)/i.exec(url.trim())?.[1]?.toLowerCase()
  if (!scheme) return undefined
  if (scheme === 'about:') return url.trim().toLowerCase() === 'about:blank' ? undefined : scheme
  // Every other scheme (file:, data:, blob:, javascript:, chrome:, view-source:, …) is refused.
  return scheme === 'http:' || scheme === 'https:' ? undefined : scheme
}

/** The refused scheme a page shows now; Chromium's own error page (where the model learns what went wrong) is not one. */
function shownRefusedScheme(page: Page): string | undefined {
  const scheme = refusedScheme(page.url())
  return scheme === 'chrome-error:' ? undefined : scheme
}

/**
 * Sends the page back to about:blank when it shows a refused URL; true when
 * it did. Observations call it too, so no view is built of such a page
 * whichever comes first.
 */
export async function resetRefusedPage(page: Page): Promise<boolean> {
  if (!shownRefusedScheme(page)) return false
  await page.goto('about:blank').catch(() => {})
  return true
}

/** Resets the page whenever its main frame commits a refused URL, with a note. */
export function watchTopLevelSchemes(page: Page, report: (note: string) => void): () => void {
  const check = (frame: Frame) => {
    if (frame !== page.mainFrame()) return
    const scheme = shownRefusedScheme(page)
    if (!scheme) return
    report(
      `The page opened a ${scheme} URL, which is not allowed in this run; the tab was reset to about:blank.`,
    )
    void resetRefusedPage(page)
  }
  page.on('framenavigated', check)
  // A popup may already have committed its first URL when it is handed over.
  check(page.mainFrame())
  return () => page.off('framenavigated', check)
}
