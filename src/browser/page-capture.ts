import type { Frame, Page } from 'playwright-core'
import { isAbortError } from '../tool.ts'
import { withDeadline } from '../util/deadline.ts'
import { takeAriaSnapshot } from './aria-snapshot.ts'
import { scanPage, tagElements } from './page-scan.ts'
import { assignRefs } from './ref-assignment.ts'
import { type RefRegistry, refAttribute } from './refs.ts'
import type { ScanOptions, ScanResult, ScrollInfo } from './scan-records.ts'
import { applyScan, buildViewTree, type ViewTree } from './view-tree.ts'

/**
 * One look at a page: Playwright's snapshot, the page scan of the main frame
 * and of the iframes that matter, stable refs assigned and registered.
 */

export type { ScrollInfo } from './scan-records.ts'

export interface CapturedPage {
  tree: ViewTree
  scroll: ScrollInfo
  title: string
}

export interface CaptureOptions {
  /** Scan the whole page rather than the viewport (for `find` and stale refs). */
  wholePage: boolean
}

const scanTimeoutMs = 5000
const maxScannedFrames = { viewport: 8, wholePage: 20 }
const stashKey = '__sextantScanStash'

export async function capturePage(
  page: Page,
  registry: RefRegistry,
  options: CaptureOptions,
  signal: AbortSignal,
): Promise<CapturedPage> {
  // The scan of the main frame runs alongside the snapshot: neither needs the
  // other until both are back. The snapshot goes first, so the scan fills the
  // renderer's idle time while the snapshot's JSON travels.
  const snapshotting = takeAriaSnapshot(page, signal)
  const scanning = scanFrame(page.mainFrame(), options, signal)
  scanning.catch(() => {})
  const snapshot = await snapshotting.catch(async (error: unknown) => {
    if (isAbortError(error) || signal.aborted) throw error
    // The document was replaced mid-snapshot: take it again once it exists.
    await page.waitForLoadState('domcontentloaded', { timeout: 3000, signal }).catch(() => {})
    return takeAriaSnapshot(page, signal)
  })
  const scan = await scanning.catch((error: unknown) => {
    if (isAbortError(error) || signal.aborted) throw error
    return scanFrame(page.mainFrame(), options, signal)
  })
  const tree = buildViewTree(snapshot)
  const capture = registry.nextCapture()
  let tagCount = 0
  const nextTag = () => `${capture}.${++tagCount}`

  const viewport = { width: scan.viewportWidth, height: scan.viewportHeight }
  const onScreen = (key: string) => {
    const box = tree.iframes.get(key)?.box
    return (
      !!box &&
      box.y < viewport.height &&
      box.y + box.height > 0 &&
      box.x < viewport.width &&
      box.x + box.width > 0
    )
  }
  // An iframe the snapshot found empty (a blocked ad, an error page) has nothing to scan.
  const hasContent = (key: string) => (tree.iframes.get(key)?.children.length ?? 0) > 0
  const childFrames = [...tree.iframes.keys()]
    .filter((key) => hasContent(key) && (options.wholePage || onScreen(key)))
    .slice(0, options.wholePage ? maxScannedFrames.wholePage : maxScannedFrames.viewport)

  const mainTags = applyScan(tree, '', scan, nextTag)
  const work = childFrames.map(async (key) => {
    const frame = await frameOf(page, key, signal)
    if (!frame) return
    try {
      const frameScan = await scanFrame(frame, options, signal)
      await tagFrame(frame, applyScan(tree, key, frameScan, nextTag), signal)
    } catch (error) {
      if (isAbortError(error) || signal.aborted) throw error
      // A frame that navigates or goes away mid-scan keeps its snapshot nodes without the extras.
    }
  })
  work.push(tagFrame(page.mainFrame(), mainTags, signal))
  await Promise.all(work)
  registry.replace(page, assignRefs(tree, registry.history))
  const { records: _records, title, documentId: _document, ...scroll } = scan
  return { tree, scroll, title }
}

async function scanFrame(frame: Frame, options: CaptureOptions, signal: AbortSignal): Promise<ScanResult> {
  const scanOptions: ScanOptions = { attribute: refAttribute, wholePage: options.wholePage, stashKey }
  return withDeadline(frame.evaluate(scanPage, scanOptions), scanTimeoutMs, signal, 'page scan')
}

async function tagFrame(frame: Frame, tags: [number, string][], signal: AbortSignal): Promise<void> {
  if (tags.length === 0) return
  const tagging = frame.evaluate(tagElements, { stashKey, attribute: refAttribute, tags })
  await withDeadline(tagging, scanTimeoutMs, signal, 'tagging')
}

async function frameOf(page: Page, iframeRef: string, signal: AbortSignal): Promise<Frame | undefined> {
  const handle = await page
    .getByRef(iframeRef)
    .elementHandle({ timeout: 1000, signal })
    .catch(() => null)
  if (!handle) return undefined
  try {
    return (await handle.contentFrame()) ?? undefined
  } finally {
    handle.dispose().catch(() => {})
  }
}
