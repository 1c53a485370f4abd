import type { BrowserContext } from 'playwright-core'
import type { PageLog } from '../events/page-log.ts'
import type { BoxOffset, CallOutcome, ElementTarget, Expectation, PointTarget } from '../recording/schema.ts'
import type { AnyTool } from '../tool.ts'
import type { ProxySettings } from './network/upstream-proxy.ts'
import type { SessionArtifactOptions, SessionArtifacts } from './session/artifacts/artifact-recorder.ts'
import type { ContextSettings } from './session/context-settings.ts'
import type { PersonInput } from './session/live/person-input.ts'
import type { LiveFrame, ScreencastOptions } from './session/live/screencast.ts'
import type { Screenshot, ScreenshotOptions, ViewportBox } from './session/pictures/screenshot.ts'
import type { TabInfo } from './session/tabs.ts'
import type { FinishReport } from './settle/finish.ts'
import type { TargetMatch } from './view/durable-targets.ts'
import type { ScreenPoint } from './view/point-targets.ts'

export type { SessionArtifacts } from './session/artifacts/artifact-recorder.ts'
export type { PersonInput } from './session/live/person-input.ts'
export type { LiveFrame, ScreencastOptions } from './session/live/screencast.ts'
export type { Screenshot, ScreenshotOptions, ViewportBox } from './session/pictures/screenshot.ts'
export type { TabInfo } from './session/tabs.ts'
export type { FinishReport, PendingRequest } from './settle/finish.ts'
export type { TargetMatch } from './view/durable-targets.ts'

/**
 * What the agent needs of a run's browser. `session/playwright-session.ts` implements it over
 * Playwright; the loop's unit tests use a fake.
 */

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
  /** What happened since the last observation: navigations, new tabs, dialogs, downloads, refused requests. */
  notes: string[]
  /** Bounds hit since the last observation (also in `notes`): each becomes a `warning` event. */
  warnings?: { code: string; message: string }[]
  /** Console errors and warnings, failed and refused requests since the last observation, when there were any. */
  pageLog?: PageLog
  /** How long the observation waited for the page to settle and then built the view, in ms. */
  timings?: { settleMs: number; viewMs: number }
}

/**
 * Why a session's browser stopped working. `page_crashed` leaves the session
 * usable (the tab can be reloaded); the others end it: a run needs a fresh
 * browser to go on.
 */
export interface BrowserFailure {
  kind: 'browser_exited' | 'connection_lost' | 'context_closed' | 'page_crashed'
  /** For the run's result and the model: "The browser process exited." */
  message: string
}

/** A session's pictures of the active page, secrets blanked. */
export interface SessionPictures {
  /**
   * A JPEG of the active page's viewport. Called while an observation is under
   * way, it waits for it and shows the page as observed (a session may have
   * started it beside the view's build); the next action waits for it, so the
   * caller need not (the model request can go out while it is taken).
   */
  screenshot(options: ScreenshotOptions, signal: AbortSignal): Promise<Screenshot>
  /** Where the element behind a ref of the latest view is on screen, for marking it on the screenshot. */
  elementBox(ref: string, signal: AbortSignal): Promise<ViewportBox | undefined>
}

/** Live frames of the run's browser, for the live view. */
export interface SessionLive {
  /**
   * Live frames of the active tab (following it when another tab becomes
   * active) to `onFrame`, from the moment it is called until `signal` aborts
   * or the session closes; then it resolves. Frames come only while the page
   * changes. While `options.masked()` is true, secret fields are painted over
   * as in screenshots, and a frame that cannot be masked is never sent.
   */
  screencast(
    onFrame: (frame: LiveFrame) => void,
    options: ScreencastOptions,
    signal: AbortSignal,
  ): Promise<void>
}

/** A person driving the run's browser after taking it over. */
export interface SessionTakeover {
  /**
   * A person's click, wheel, keys or text on the active page. Rejects with
   * PersonInputError for a point off the viewport or an unknown key.
   */
  input(input: PersonInput, signal: AbortSignal): Promise<void>
}

/** What a session lends recordings and replays: elements described durably, found again, and checked. */
export interface SessionRecording {
  /** The element behind a ref of the latest view, described durably: role, name, context, attributes. */
  describeTarget(ref: string, signal: AbortSignal): Promise<ElementTarget | undefined>
  /** The element of the latest view under a screenshot point, durably, and the point's place in its box. */
  describePoint(point: ScreenPoint, signal: AbortSignal): Promise<PointTarget | undefined>
  /** The screenshot point at `offset` in the element behind a ref (scrolled into view), or why there is none. */
  pointIn(ref: string, offset: BoxOffset): Promise<ScreenPoint | string>
  /** Finds a durable target on the active page: a ref of it, or why it cannot be told. */
  findTarget(target: ElementTarget, signal: AbortSignal): Promise<TargetMatch>
  /**
   * Checks a replayed step's expectation, waiting up to `waitMs` for it (default: a replay's, 8 s):
   * undefined when it holds, else what is wrong.
   */
  checkExpectation(
    expectation: Expectation,
    target: ElementTarget | undefined,
    signal: AbortSignal,
    waitMs?: number,
  ): Promise<string | undefined>
  /** What a finished call left on the active page, for the recording's expectations. */
  callOutcome(
    probe: { ref?: string; target?: ElementTarget; typed?: string },
    signal: AbortSignal,
  ): Promise<CallOutcome>
}

export interface BrowserSession {
  /** Observe the active page: settles navigation (bounded), builds the page view. */
  observe(signal: AbortSignal): Promise<PageObservation>
  /** The browser actions bound to this session. */
  tools(): AnyTool[]
  /**
   * Recordings and replays, asked for once: a session without it records calls
   * without targets and cannot replay element steps.
   */
  readonly recording?: SessionRecording
  /** The session's pictures; a session without them runs without screenshots (and without vision). */
  readonly pictures?: SessionPictures
  /** Live frames; a session without them has no live view. */
  readonly live?: SessionLive
  /** A person's input; a session without it cannot be driven by a person. */
  readonly takeover?: SessionTakeover
  /** The run's artifacts; present only when the run asked for some and the session records them. */
  readonly artifacts?: SessionArtifacts
  /**
   * What went wrong with the browser under this session, if anything: the
   * browser gone (its process exited, its connection lost), the run's context
   * closed under it, or the active tab's page crashed. Optional: a session
   * without it is never replaced mid-run.
   */
  failure?(): BrowserFailure | undefined
  /**
   * Before the run closes the browser: waits, within a few seconds, until the
   * requests the last actions started have completed, watching a moment for
   * late ones (a save posted after a debounce). Returns what it saw. Optional:
   * a session without it is closed at once.
   */
  finish?(signal: AbortSignal): Promise<FinishReport>
  /** Closes the run's browser context (and the browser if this session owns it). Idempotent. */
  close(): Promise<void>
  /** The session's cookies and local storage now, for a sub-agent that must share its login. */
  storageState?(): Promise<SessionState>
}

/** Cookies and local storage of a session, as Playwright saves and restores them. */
export type SessionState = Awaited<ReturnType<BrowserContext['storageState']>>

export interface BrowserSessionOptions {
  runId: string
  startUrl?: string
  allowedDomains?: string[]
  /** Folder for this run's downloads. */
  runDir?: string
  /** A download larger than this many bytes is cancelled, with a note and a warning (default 50 MB). */
  maxDownloadBytes?: number
  /**
   * Told of each download once saved whole (its name, unique in the run, and
   * the file): a server on a shared store keeps it there. A rejection is
   * told to the model as a note; the file stays saved.
   */
  keepDownload?: (name: string, path: string) => Promise<void>
  /** Files that upload_file may send must live under this folder. */
  uploadDir?: string
  headed?: boolean
  /** How alert/confirm/prompt dialogs are answered (default: accept). */
  dialogs?: 'accept' | 'dismiss'
  /** Lets navigate/open_tab open file:, data:, chrome: and javascript: URLs (default: false). */
  allowUnsafeSchemes?: boolean
  /** Hard cap on a page view, in estimated tokens (chars / 4; default 6000). */
  pageViewTokenCap?: number
  /**
   * `host:port` origins refused whatever `allowedDomains` says: the server
   * passes its own (`ownOrigins(host, port)` from browser/network/own-origins.ts).
   * Cloud metadata addresses are refused in every run without being listed.
   */
  deniedOrigins?: string[]
  /** Refuse private, loopback and link-local addresses, by the address a name resolves to (default false). */
  blockPrivateNetworks?: boolean
  /** Tabs open at once; pages opened beyond it are closed at once (default 10). */
  maxTabs?: number
  /** Page titles and URLs are cut to this many characters in observations and views (default 300). */
  maxTextChars?: number
  /** Viewport of the run's pages (default 1280×800). */
  viewport?: { width: number; height: number }
  /** The context the run asked for: device, viewport, locale, time zone, place, permissions, headers, init scripts. */
  context?: ContextSettings
  /** A proxy the run's traffic leaves through, behind its network guard (browser/network/upstream-proxy.ts). */
  proxy?: ProxySettings
  /** The artifacts to record: a trace, a video, a HAR (session/artifacts/). */
  artifacts?: SessionArtifactOptions
  /** Cookies and local storage the context starts with (a sub-agent sharing its parent's login). */
  storageState?: SessionState
}

/**
 * Opens a session for one run; the agent calls it once (twice when the first
 * session's browser died mid-run) and closes every session it opened.
 */
export type BrowserSessionFactory = (
  options: BrowserSessionOptions,
  signal: AbortSignal,
) => Promise<BrowserSession>
