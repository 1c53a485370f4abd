import type { CDPSession, Page } from 'playwright-core'

interface Announced {
  startedAt: number
}

/**
 * A page's requests as its renderer announces them, on a CDP session of our
 * own. Playwright's `request` event waits for the browser to pause the request
 * for the session's routes (the guard routes every request when the run names
 * its domains), and a loaded machine can hold that past the DOM's quiet window:
 * once in a whole test run, a click's fetch was seen only after the settle had
 * ended. The renderer says the request started as the page makes it
 * (measured with the network service stalled: 60 ms before Playwright's event,
 * before the click's own answer). Playwright's events stay what names a request;
 * this only says one is in flight.
 */
export class AnnouncedRequests {
  readonly #inflight = new Map<string, Announced>()
  #lastViewStart = Number.NEGATIVE_INFINITY
  readonly #session: Promise<CDPSession | undefined>

  /** `forView`: whether a request of this kind (Playwright's name for it, CDP's lower-cased) is one the view depends on. */
  constructor(page: Page, forView: (kind: string) => boolean) {
    this.#session = this.#attach(page, forView)
  }

  async #attach(page: Page, forView: (kind: string) => boolean): Promise<CDPSession | undefined> {
    try {
      const cdp = await page.context().newCDPSession(page)
      cdp.on('Network.requestWillBeSent', (event) => {
        if (!forView((event.type ?? '').toLowerCase())) return
        const now = performance.now()
        this.#inflight.set(event.requestId, { startedAt: now })
        this.#lastViewStart = now
      })
      const ended = (event: { requestId: string }) => this.#inflight.delete(event.requestId)
      cdp.on('Network.loadingFinished', ended)
      cdp.on('Network.loadingFailed', ended)
      // No bodies are kept for this session: it reads only that requests start and end.
      await cdp.send('Network.enable', { maxTotalBufferSize: 0, maxResourceBufferSize: 0 })
      return cdp
    } catch {
      // A page that closed meanwhile, or a browser that will not attach: Playwright's events remain.
      return undefined
    }
  }

  /** Whether a request the view depends on, started within `maxAgeMs`, is still loading. */
  holdsView(maxAgeMs: number): boolean {
    const now = performance.now()
    let holds = false
    for (const [id, { startedAt }] of this.#inflight) {
      // Older ones (a long poll, a load whose end never came) hold nothing, and are let go.
      if (now - startedAt < maxAgeMs) holds = true
      else this.#inflight.delete(id)
    }
    return holds
  }

  /** When the renderer last announced a request the view depends on (performance.now(); -Infinity before). */
  lastViewStartAt(): number {
    return this.#lastViewStart
  }

  detach(): void {
    this.#inflight.clear()
    void this.#session.then((cdp) => cdp?.detach()).catch(() => {})
  }
}
