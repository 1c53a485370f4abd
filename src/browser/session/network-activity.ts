import type { Page, Request } from 'playwright-core'

/** Requests running longer than this are long polls or hung resources: they do not hold up a settle. */
const longLivedMs = 2500

/** Counts a page's requests in flight, to tell when its network has gone quiet. */
export class NetworkActivity {
  readonly #inflight = new Map<Request, number>()
  #lastChange = performance.now()
  readonly #detach: () => void

  constructor(page: Page) {
    const started = (request: Request) => {
      this.#inflight.set(request, performance.now())
      this.#lastChange = performance.now()
    }
    const ended = (request: Request) => {
      if (this.#inflight.delete(request)) this.#lastChange = performance.now()
    }
    page.on('request', started)
    page.on('requestfinished', ended)
    page.on('requestfailed', ended)
    this.#detach = () => {
      page.off('request', started)
      page.off('requestfinished', ended)
      page.off('requestfailed', ended)
    }
  }

  /** Milliseconds since the last request started or ended, or 0 while a short-lived request runs. */
  quietFor(): number {
    const now = performance.now()
    for (const startedAt of this.#inflight.values()) {
      if (now - startedAt < longLivedMs) return 0
    }
    return now - this.#lastChange
  }

  /** When a request last started or ended (performance.now() time). */
  lastChangeAt(): number {
    return this.#lastChange
  }

  /** Whether a request has been running longer than a settle waits for (a long poll, a hung image). */
  hasLongLived(): boolean {
    const now = performance.now()
    for (const startedAt of this.#inflight.values()) if (now - startedAt >= longLivedMs) return true
    return false
  }

  detach(): void {
    this.#detach()
    this.#inflight.clear()
  }
}
