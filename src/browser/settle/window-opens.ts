import type { CDPSession, Page } from 'playwright-core'

/** A window asked for longer ago than this and still not there is not waited for any more. */
const openingMs = 2000

/**
 * Tells when a page has asked for a new window (window.open, a target=_blank
 * link) that Playwright has not reported yet: the browser says so at once
 * (CDP Page.windowOpen), the new page arrives tens of milliseconds later, by
 * when a settle that went by the clock alone may be over.
 */
export class WindowOpens {
  #asked = 0
  #arrived = 0
  #askedAt = Number.NEGATIVE_INFINITY
  #session: CDPSession | undefined
  #detached = false
  readonly #page: Page
  /** Any new page of the context counts: a window opened with noopener has no opener to tell it by. */
  readonly #onPage = () => {
    this.#arrived = Math.min(this.#asked, this.#arrived + 1)
  }

  constructor(page: Page) {
    this.#page = page
    page.context().on('page', this.#onPage)
    // Best effort: a browser reached without CDP (another engine) only loses this early signal.
    page
      .context()
      .newCDPSession(page)
      .then(async (session) => {
        this.#session = session
        if (this.#detached) return void session.detach().catch(() => {})
        session.on('Page.windowOpen', () => {
          this.#asked++
          this.#askedAt = performance.now()
        })
        await session.send('Page.enable')
      })
      .catch(() => {})
  }

  /** Whether a window the page asked for recently has not appeared yet. */
  pending(): boolean {
    return this.#asked > this.#arrived && performance.now() - this.#askedAt < openingMs
  }

  detach(): void {
    this.#detached = true
    this.#page.context().off('page', this.#onPage)
    this.#session?.detach().catch(() => {})
  }
}
