import type { BrowserContext } from 'playwright-core'
import type { BrowserFailure } from '../browser-session.ts'

/**
 * Tells a session's browser dying from a page failing: Playwright reports
 * both as the same "Target page, context or browser has been closed" on
 * every call, but only the first needs a fresh browser. Listens to the
 * context (closed), its browser (disconnected) and the pages (crashed).
 */
export class BrowserHealth {
  readonly #context: BrowserContext
  readonly #remote: boolean
  #contextClosed = false
  #crashedPage: string | undefined
  #closing = false

  /** `remote`: the browser was connected to (ws, CDP), not launched, so it can lose its connection rather than exit. */
  constructor(context: BrowserContext, remote: boolean) {
    this.#context = context
    this.#remote = remote
    context.on('close', () => {
      this.#contextClosed = true
    })
  }

  /** The session closes its own context: that is not a failure. */
  closing(): void {
    this.#closing = true
  }

  pageCrashed(tabId: string): void {
    this.#crashedPage = tabId
  }

  /** A page was observed again: an earlier crash was recovered from (reloaded, navigated). */
  pageObserved(): void {
    this.#crashedPage = undefined
  }

  failure(): BrowserFailure | undefined {
    if (this.#closing) return undefined
    // A disconnected browser closes its contexts too: asked first, so the cause is the browser's.
    if (this.#context.browser()?.isConnected() === false) {
      return this.#remote
        ? { kind: 'connection_lost', message: 'The connection to the browser was lost.' }
        : { kind: 'browser_exited', message: 'The browser process exited.' }
    }
    if (this.#contextClosed)
      return { kind: 'context_closed', message: "The run's browser context was closed." }
    if (this.#crashedPage !== undefined)
      return { kind: 'page_crashed', message: `The page in tab ${this.#crashedPage} crashed.` }
    return undefined
  }
}
