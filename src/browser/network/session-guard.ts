import type { BrowserContext, BrowserContextOptions, Request, Route } from 'playwright-core'
import { canonicalHost, effectivePort, formatOrigin } from '../../util/host-rules.ts'
import { type GuardProxy, startGuardProxy } from './guard-proxy.ts'
import {
  NetworkPolicy,
  type NetworkPolicyOptions,
  refusedNavigationText,
  refusedNote,
} from './network-policy.ts'
import { ProxyError, type ProxySettings, parseProxyServer } from './upstream-proxy.ts'
import { disableWebRtcScript } from './webrtc-guard.ts'

/** A request the guard refused: the model's note, and what the page log keeps of it. */
export interface GuardRefusal {
  note: string
  /** `host:port` */
  origin: string
  reason: string
  /** The request's URL and method, when the browser's route saw it (the proxy sees only the origin). */
  url?: string
  method?: string
}

/**
 * A run's network boundary: its policy, the guard proxy its context goes
 * through, and the in-browser routes that refuse what Playwright can see
 * early (so a blocked navigation fails at once with ERR_BLOCKED_BY_CLIENT).
 * Refusals become notes for the model.
 *
 * Without the proxy (a browser on another machine cannot reach it), the
 * routes are all there is: requests Playwright does not see (redirect hops,
 * shared workers, speculation rules) are then not covered; see docs/security.md.
 */
export class SessionNetworkGuard {
  readonly policy: NetworkPolicy
  readonly #proxy: GuardProxy | undefined
  /** The run's own upstream proxy, which Chromium uses directly only when the guard's cannot be reached. */
  readonly #upstream: ProxySettings | undefined
  readonly #pending: GuardRefusal[] = []
  #report: ((refusal: GuardRefusal) => void) | undefined

  private constructor(
    policy: NetworkPolicy,
    proxy: GuardProxy | undefined,
    upstream: ProxySettings | undefined,
  ) {
    this.policy = policy
    this.#proxy = proxy
    this.#upstream = upstream
  }

  /** Throws ProxyError when the run's upstream proxy is an address no run may reach. */
  static async open(
    options: NetworkPolicyOptions & { proxy?: ProxySettings | undefined },
    useProxy: boolean,
  ): Promise<SessionNetworkGuard> {
    const policy = new NetworkPolicy(options)
    const upstream = options.proxy
    const address = upstream && parseProxyServer(upstream.server)
    if (upstream && !address) throw new ProxyError('The proxy address is not valid.')
    const refusal = address && policy.refusalAsProxy(address.host, address.port)
    if (refusal) throw new ProxyError(`The proxy ${formatOrigin(address.host, address.port)} is ${refusal}.`)
    const holder: { guard?: SessionNetworkGuard } = {}
    const proxy = useProxy
      ? await startGuardProxy(policy, (origin, reason) => holder.guard?.refused(origin, reason), upstream)
      : undefined
    holder.guard = new SessionNetworkGuard(policy, proxy, upstream)
    return holder.guard
  }

  get proxied(): boolean {
    return this.#proxy !== undefined
  }

  /** What the context must be created with. */
  contextOptions(): Pick<BrowserContextOptions, 'proxy' | 'serviceWorkers'> {
    if (this.#proxy) return { proxy: { server: this.#proxy.server } }
    // Playwright's routes miss service-worker requests: without the proxy they are not allowed at all.
    return { serviceWorkers: 'block', ...(this.#upstream ? { proxy: this.#upstream } : {}) }
  }

  refused(origin: string, reason: string, seen: Partial<GuardRefusal> = {}): void {
    const refusal = { note: refusedNote(origin, reason), origin, reason, ...seen }
    if (this.#report) this.#report(refusal)
    else if (this.#pending.length < 20) this.#pending.push(refusal)
  }

  /** Routes what the browser lets Playwright see through the policy; refusals are reported to `report`. */
  async install(context: BrowserContext, report: (refusal: GuardRefusal) => void): Promise<void> {
    this.#report = report
    for (const refusal of this.#pending.splice(0)) report(refusal)
    await context.addInitScript(disableWebRtcScript)
    // Routing turns Chromium's cache off: only worth it when it refuses by name more than the proxy would.
    if (this.policy.restrictsHosts || !this.#proxy) {
      await context.route('**/*', (route) => this.#route(route))
    }
    if (!this.#proxy) {
      await context.routeWebSocket(/.*/, (socket) => {
        const refusal = this.#refusal(socket.url())
        if (refusal) {
          this.refused(refusal.origin, refusal.reason, { url: socket.url(), method: 'WEBSOCKET' })
          return socket.close({ code: 1008, reason: 'refused by Sextant' })
        }
        socket.connectToServer()
      })
    }
  }

  #refusal(text: string): { origin: string; reason: string } | undefined {
    let url: URL
    try {
      url = new URL(text)
    } catch {
      return undefined
    }
    if (!/^(https?|wss?):$/.test(url.protocol)) return undefined
    const host = canonicalHost(url.hostname) ?? url.hostname
    const port = effectivePort(url)
    const reason = this.policy.refusalByName(host, port)
    return reason ? { origin: formatOrigin(host, port), reason } : undefined
  }

  async #route(route: Route): Promise<void> {
    const request = route.request()
    const refusal = this.#refusal(request.url())
    if (!refusal) {
      await route.fallback().catch(() => {})
      return
    }
    const topLevel = request.isNavigationRequest() && isMainFrame(request)
    const seen = { url: request.url(), method: request.method() }
    const note = topLevel ? refusedNavigationText(request.url(), refusal.origin, refusal.reason) : undefined
    this.refused(refusal.origin, refusal.reason, note ? { ...seen, note } : seen)
    await route.abort('blockedbyclient').catch(() => {})
  }

  async close(): Promise<void> {
    await this.#proxy?.close()
  }
}

function isMainFrame(request: Request): boolean {
  try {
    return request.frame().parentFrame() === null
  } catch {
    // A service worker's request has no frame.
    return false
  }
}
