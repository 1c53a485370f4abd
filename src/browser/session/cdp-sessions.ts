import type { CDPSession, Page } from 'playwright-core'

/**
 * A CDP session per page for what is asked of it outside Playwright (its
 * pictures, its secret search). Attaching one per picture cost
 * three round trips and the renderer's setup of a new client on every step.
 * `keep` false: each use attaches its own and lets it go (a lone picture).
 */
export class PageCdpSessions {
  readonly #kept = new WeakMap<Page, Promise<CDPSession>>()
  readonly #keep: boolean

  constructor(keep = true) {
    this.#keep = keep
  }

  async use<T>(page: Page, work: (cdp: CDPSession) => Promise<T>): Promise<T> {
    if (!this.#keep) {
      const cdp = await page.context().newCDPSession(page)
      try {
        return await work(cdp)
      } finally {
        void cdp.detach().catch(() => {})
      }
    }
    let session = this.#kept.get(page)
    if (!session) {
      session = page.context().newCDPSession(page)
      this.#kept.set(page, session)
      // A session that could not attach is not kept: the next picture tries afresh.
      session.catch(() => this.#kept.delete(page))
    }
    try {
      return await work(await session)
    } catch (error) {
      // A session that broke (its target went away and came back) is let go; the next picture attaches anew.
      if (this.#kept.get(page) === session) this.#kept.delete(page)
      void session.then((cdp) => cdp.detach()).catch(() => {})
      throw error
    }
  }
}
