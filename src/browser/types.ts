import type { AnyTool } from '../tool.ts'
import type { Screenshot, ScreenshotOptions, ViewportBox } from './screenshot.ts'

export type { Screenshot, ScreenshotOptions, ViewportBox } from './screenshot.ts'

/**
 * What the agent needs of a run's browser. `session.ts` implements it over
 * Playwright; the loop's unit tests use a fake.
 */

export interface TabInfo {
  /** Stable tab id shown to the model, e.g. "t1". */
  id: string
  url: string
  title: string
  active: boolean
}

export interface PageObservation {
  url: string
  title: string
  tabs: TabInfo[]
  /** Number of element references in the view. */
  refs: number
  /** The page view as the model reads it (header + tree), already capped. */
  pageView: string
  /** Estimated tokens of `pageView`. */
  tokens: number
  /** Hash of the page view content and URL, for stuck detection. */
  fingerprint: string
  /** What happened since the last observation: navigations, new tabs, dialogs, downloads. */
  notes: string[]
}

export interface BrowserSession {
  /** Observe the active page: settles navigation (bounded), builds the page view. */
  observe(signal: AbortSignal): Promise<PageObservation>
  /** The browser actions bound to this session. */
  tools(): AnyTool[]
  /**
   * A JPEG of the active page's viewport as it is now, secrets blanked. Optional:
   * a session without it runs without screenshots (and without vision).
   */
  screenshot?(options: ScreenshotOptions, signal: AbortSignal): Promise<Screenshot>
  /** Where the element behind a ref of the latest view is on screen, for marking it on the screenshot. */
  elementBox?(ref: string, signal: AbortSignal): Promise<ViewportBox | undefined>
  /** Closes the run's browser context (and the browser if this session owns it). Idempotent. */
  close(): Promise<void>
}

export interface BrowserSessionOptions {
  runId: string
  startUrl?: string
  allowedDomains?: string[]
  /** Folder for this run's downloads. */
  runDir?: string
  /** Files that upload_file may send must live under this folder. */
  uploadDir?: string
  headed?: boolean
  /** How alert/confirm/prompt dialogs are answered (default: accept). */
  dialogs?: 'accept' | 'dismiss'
  /** Lets navigate/open_tab open file:, data:, chrome: and javascript: URLs (default: false). */
  allowUnsafeSchemes?: boolean
  /** Hard cap on a page view, in estimated tokens (chars / 4; default 6000). */
  pageViewTokenCap?: number
  /** Viewport of the run's pages (default 1280×800). */
  viewport?: { width: number; height: number }
}

/** Opens a session for one run; the agent calls it once and closes the session on every path. */
export type BrowserSessionFactory = (
  options: BrowserSessionOptions,
  signal: AbortSignal,
) => Promise<BrowserSession>
