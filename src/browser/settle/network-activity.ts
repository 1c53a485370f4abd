import type { Page, Request } from 'playwright-core'
import { AnnouncedRequests } from './announced-requests.ts'
import { WindowOpens } from './window-opens.ts'

/** Requests running longer than this are long polls or hung resources: they do not hold up a settle. */
const longLivedMs = 2500

/**
 * What a page view depends on: a new document, the scripts that render it, the
 * data they fetch, the styles that show or hide it. Images, fonts and media
 * change no line of the view; beacons, WebSockets and event streams never end.
 */
const viewKinds = new Set(['document', 'script', 'xhr', 'fetch', 'stylesheet'])

/**
 * What can have an effect on a server: everything but streams that never end
 * and media, which only fetch.
 */
const streamKinds = new Set(['websocket', 'eventsource', 'media', 'image', 'font'])

interface InFlight {
  startedAt: number
  kind: string
  method: string
  url: string
}

/** A request in flight, as a finish report names it. */
export interface PendingRequest {
  method: string
  url: string
  kind: string
}

/** Counts a page's requests in flight and the windows it is opening, to tell when what an action set off has finished. */
export class NetworkActivity {
  readonly #inflight = new Map<Request, InFlight>()
  #lastChange = performance.now()
  #lastViewStart = Number.NEGATIVE_INFINITY
  #ended = 0
  readonly #detach: () => void
  readonly #windows: WindowOpens
  readonly #announced: AnnouncedRequests

  constructor(page: Page) {
    this.#windows = new WindowOpens(page)
    this.#announced = new AnnouncedRequests(page, (kind) => viewKinds.has(kind))
    const started = (request: Request) => {
      const now = performance.now()
      this.#inflight.set(request, {
        startedAt: now,
        kind: request.resourceType(),
        method: request.method(),
        url: request.url(),
      })
      this.#lastChange = now
      if (viewKinds.has(request.resourceType())) this.#lastViewStart = now
    }
    const ended = (request: Request) => {
      if (!this.#inflight.delete(request)) return
      this.#lastChange = performance.now()
      this.#ended++
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

  /**
   * Whether a request the page view depends on is in flight, and young
   * enough to be waited for, or a window the page opened is still on its way.
   */
  holdsView(): boolean {
    if (this.#windows.pending() || this.#announced.holdsView(longLivedMs)) return true
    const now = performance.now()
    for (const request of this.#inflight.values()) {
      if (viewKinds.has(request.kind) && now - request.startedAt < longLivedMs) return true
    }
    return false
  }

  /** Requests in flight that may change something on a server (not streams or media), started within `maxAgeMs`. */
  effects(maxAgeMs: number): PendingRequest[] {
    const now = performance.now()
    const pending: PendingRequest[] = []
    for (const { kind, method, url, startedAt } of this.#inflight.values()) {
      if (!streamKinds.has(kind) && now - startedAt < maxAgeMs) pending.push({ kind, method, url })
    }
    return pending
  }

  /** When a request last started or ended (performance.now() time). */
  lastChangeAt(): number {
    return this.#lastChange
  }

  /** When a request the view depends on last started (performance.now() time; -Infinity before the first). */
  lastViewStartAt(): number {
    return Math.max(this.#lastViewStart, this.#announced.lastViewStartAt())
  }

  /** How many requests have ended (finished or failed) since the page was watched. */
  endedCount(): number {
    return this.#ended
  }

  detach(): void {
    this.#detach()
    this.#windows.detach()
    this.#announced.detach()
    this.#inflight.clear()
  }
}
