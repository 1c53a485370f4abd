import type { ElementHandle, Locator, Page } from 'playwright-core'
import type { UrlPolicy } from '../network/navigation-guard.ts'
import type { CapturedPage } from '../view/page-capture.ts'
import type { RefEntry } from '../view/stable-refs.ts'
import type { DialogPolicy } from './dialogs.ts'
import type { NoteQueue } from './notes.ts'
import type { PageLog } from './page-log.ts'
import type { SecretFields } from './pictures/secret-masks.ts'
import type { TabTracker } from './tabs.ts'

/** A session's settings once defaults are applied. */
export interface SessionSettings {
  runId: string
  policy: UrlPolicy
  uploadDir?: string | undefined
  dialogs: DialogPolicy
  tokenCap: number
  /** Bound on Playwright's actionability wait for clicks, hovers, typing. */
  actionTimeoutMs: number
  navigationTimeoutMs: number
}

export interface ResolvedElement {
  page: Page
  locator: Locator
  entry: RefEntry
  /** How results name the element: `button 'Save'`. */
  label: string
  /**
   * The element itself, as the lookup found it: reads of it (what a field is,
   * whether a click would reach it) go through it, in one round trip each.
   */
  element: ElementHandle
  /**
   * For an element the page scan marked (no snapshot node of its own): the
   * element itself, as the scan holds it. Pointer actions go through it, so
   * a mark the page moves after the lookup cannot redirect them.
   */
  handle?: ElementHandle
  /**
   * For an element shown only while its row or card is hovered: that row or card, as the page scan
   * found it. Every action hovers it first (`actions/hover-reveal.ts`).
   */
  revealer?: ElementHandle
}

/** What a pointer action acts through: the scan's own handle of a marked element, else its locator. */
export type ActionTarget = Locator | ElementHandle

/**
 * The part of a session the browser actions see: its settings, tabs and
 * notes, and the few operations they build on. The session implements it; the
 * actions know nothing else of it.
 */
export interface BrowserToolSurface {
  readonly settings: SessionSettings
  readonly tabs: TabTracker
  readonly notes: NoteQueue
  /** What the pages logged and which requests failed: what `read_console` and `read_network` read. */
  readonly pageLog: PageLog
  /** The fields a secret went into: every later picture blanks them. */
  readonly secretFields: SecretFields
  activePage(): Promise<Page>
  /** The input type (`password`, `date`, …) the last page view showed for a ref, when the role hides it. */
  fieldType(ref: string): string | undefined
  /** The element behind a stable ref, or the text of a failed result when it is gone. */
  resolve(ref: string, signal: AbortSignal): Promise<ResolvedElement | string>
  /** A fresh look at the page (updates the refs). */
  capture(page: Page, wholePage: boolean, signal: AbortSignal): Promise<CapturedPage>
  /** Screenshot pixels per CSS pixel of the latest screenshot (1 before any): where `click_at` points are. */
  pictureScale(): number
  /** Bounded wait for what an action set off on the page: its document, its requests, its DOM. */
  settle(page: Page, signal: AbortSignal): Promise<boolean>
  /** Before an action: waits for what was asked of the page before it (a screenshot of the observed page). */
  beforeAction(signal: AbortSignal): Promise<void>
  /** After an action, whatever its outcome: when it ended, for the wait before the browser closes. */
  afterAction(): void
}
