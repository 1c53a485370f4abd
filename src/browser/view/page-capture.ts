import type { Frame, Page } from 'playwright-core'
import { isAbortError } from '../../tool.ts'
import { withDeadline } from '../../util/deadline.ts'
import { describeError } from '../../util/describe-error.ts'
import { takeAriaSnapshot } from './aria-snapshot.ts'
import type { ListenerHandoff, PreparedListeners } from './listeners/listener-lookup.ts'
import { assignRefs } from './ref-assignment.ts'
import type { ScanOptions, ScanResult, ScrollInfo } from './scan-records.ts'
import type { LatestCapture, RefRegistry } from './stable-refs.ts'
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
  /** Why the page scan failed, when the capture is the snapshot's alone. */
  scanFailure?: string
}

export interface CaptureOptions {
  /** Scan the whole page rather than the viewport (for `find` and stale refs). */
  wholePage: boolean
  /**
   * A capture of the same document whose snapshot is built on instead of
   * taking one: Playwright's snapshot is most of a capture's cost, and a
   * whole-page scan laid on the view's snapshot reads the page as the view did.
   */
  snapshotOf?: LatestCapture
}

const listenerTimeoutMs = 4000
const maxScannedFrames = { viewport: 8, wholePage: 20 }
const hiddenValue = '••••••'

export async function capturePage(
  page: Page,
  registry: RefRegistry,
  options: CaptureOptions,
  signal: AbortSignal,
): Promise<CapturedPage> {
  // The scan of the main frame runs alongside the snapshot: neither needs the
  // other until both are back. The snapshot goes first, so the scan fills the
  // renderer's idle time while the snapshot's JSON travels.
  const kept = options.snapshotOf?.snapshot
  const snapshotting = kept ? Promise.resolve(kept) : takeAriaSnapshot(page, signal)
  const earlier = registry.listeners.latest(page)
  const prepared = lookUpListeners(page, registry, signal)
  const listening = prepared.then((answer) => answer?.handoff)
  const scanning = scanMainFrame(registry, page, options, earlier, prepared, signal)
  scanning.catch(() => {})
  const snapshot = await snapshotting.catch(async (error: unknown) => {
    if (isAbortError(error) || signal.aborted) throw error
    // The document was replaced mid-snapshot: take it again once it exists.
    await page.waitForLoadState('domcontentloaded', { timeout: 3000, signal }).catch(() => {})
    return takeAriaSnapshot(page, signal)
  })
  // Built while the scan's answer is still on its way.
  const tree = buildViewTree(snapshot)
  let scanFailure: string | undefined
  const scan = await scanning
    .catch((error: unknown) => {
      if (isAbortError(error) || signal.aborted) throw error
      return scanFrame(registry, page.mainFrame(), options, listening, signal)
    })
    .catch(async (error: unknown) => {
      if (isAbortError(error) || signal.aborted) throw error
      // The scan runs among the page's own scripts, which can break what it
      // relies on; the snapshot runs apart from them, so the view goes on
      // from it alone.
      scanFailure = describeError(error)
      return snapshotOnly(page)
    })

  const { records: _records, title, documentId, offScreen: _offScreen, ...scroll } = scan
  // Another document's snapshot names other elements, and a page scrolled since has moved every box:
  // then this page's snapshot is taken after all.
  const before = options.snapshotOf
  if (
    before &&
    (scanFailure !== undefined ||
      documentId !== before.tree.documents.get('') ||
      (Object.keys(scroll) as (keyof ScrollInfo)[]).some((key) => scroll[key] !== before.scroll[key]))
  )
    return capturePage(page, registry, { wholePage: options.wholePage }, signal)

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

  // Without a scan there is no document id, so no identity: refs then come from keys alone.
  if (scanFailure === undefined) applyScan(tree, '', scan)
  else hideFieldValues(tree)
  let complete =
    scanFailure === undefined &&
    scan.offScreen === 0 &&
    childFrames.length === [...tree.iframes.keys()].filter(hasContent).length
  const work = childFrames.map(async (key) => {
    const frame = await frameOf(page, key, signal)
    if (!frame) {
      complete = false
      return
    }
    try {
      const frameListening = lookUpFrameListeners(page, frame, registry, listening, signal)
      const frameScan = await scanFrame(registry, frame, options, frameListening, signal)
      applyScan(tree, key, frameScan)
      if (frameScan.offScreen > 0) complete = false
    } catch (error) {
      if (isAbortError(error) || signal.aborted) throw error
      // A frame that navigates or goes away mid-scan keeps its snapshot nodes without the extras.
      complete = false
    }
  })
  await Promise.all(work)
  registry.replace(page, assignRefs(tree, registry.history, options.wholePage, registry.attribute), {
    tree,
    snapshot,
    scroll,
    wholePage: options.wholePage,
    complete: options.wholePage || complete,
  })
  return { tree, scroll, title, ...(scanFailure === undefined ? {} : { scanFailure }) }
}

/**
 * The snapshot shows every field's value, password fields included; the scan
 * is what tells them apart. Without it, no text field's value is shown.
 */
function hideFieldValues(tree: ViewTree): void {
  for (const nodes of tree.frames.values()) {
    for (const node of nodes) if (node.role === 'textbox' && node.text) node.text = hiddenValue
  }
}

/** What a capture knows of a page whose scan failed: its title and viewport, nothing scanned. */
async function snapshotOnly(page: Page): Promise<ScanResult> {
  const viewport = page.viewportSize() ?? { width: 1280, height: 720 }
  return {
    title: await page.title().catch(() => ''),
    documentId: '',
    scrollX: 0,
    scrollY: 0,
    viewportWidth: viewport.width,
    viewportHeight: viewport.height,
    scrollWidth: viewport.width,
    scrollHeight: viewport.height,
    records: [],
    offScreen: 0,
  }
}

async function scanFrame(
  registry: RefRegistry,
  frame: Frame,
  options: CaptureOptions,
  listening: Promise<ListenerHandoff | undefined>,
  signal: AbortSignal,
): Promise<ScanResult> {
  const listeners = await listening
  const scanOptions: ScanOptions = {
    attribute: registry.attribute,
    wholePage: options.wholePage,
    ...(listeners ? { listeners } : {}),
  }
  return registry.scanners.scan(frame, scanOptions, signal)
}

/**
 * The main frame's scan. It waits for this capture's listener lookup only on
 * a page never looked up before: otherwise it goes out at once on the stores
 * as the last lookup left them, and is kept when this lookup finds nothing
 * changed (most captures). The scan then runs in the renderer right behind
 * the lookup instead of a round trip after it.
 */
async function scanMainFrame(
  registry: RefRegistry,
  page: Page,
  options: CaptureOptions,
  earlier: ListenerHandoff | undefined,
  prepared: Promise<PreparedListeners | undefined>,
  signal: AbortSignal,
): Promise<ScanResult> {
  const frame = page.mainFrame()
  const fresh = prepared.then((answer) => answer?.handoff)
  if (!earlier) return scanFrame(registry, frame, options, fresh, signal)
  const [scan, answer] = await Promise.all([
    scanFrame(registry, frame, options, Promise.resolve(earlier), signal),
    prepared,
  ])
  return answer && !answer.changed ? scan : scanFrame(registry, frame, options, fresh, signal)
}

/**
 * The browser's answer of which elements listen, for this capture's scans; none when it is slow to
 * come (the scan then goes on with what the page itself shows) or the run is stopped.
 */
async function lookUpListeners(
  page: Page,
  registry: RefRegistry,
  signal: AbortSignal,
): Promise<PreparedListeners | undefined> {
  try {
    return await withDeadline(registry.listeners.prepare(page), listenerTimeoutMs, signal, 'listener lookup')
  } catch (error) {
    if (isAbortError(error) || signal.aborted) throw error
    return undefined
  }
}

/** The page's handoff, with the frame's own target's when it runs out of process; the page's alone when that is slow to come. */
async function lookUpFrameListeners(
  page: Page,
  frame: Frame,
  registry: RefRegistry,
  listening: Promise<ListenerHandoff | undefined>,
  signal: AbortSignal,
): Promise<ListenerHandoff | undefined> {
  const handoff = await listening
  try {
    return await withDeadline(
      registry.listeners.forFrame(page, frame, handoff),
      listenerTimeoutMs,
      signal,
      'listener lookup',
    )
  } catch (error) {
    if (isAbortError(error) || signal.aborted) throw error
    return handoff
  }
}

/** The frame an iframe's snapshot ref names, as the browser reports it. */
export async function frameOf(
  page: Page,
  iframeRef: string,
  signal: AbortSignal,
): Promise<Frame | undefined> {
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
