import type { MiddlewareHandler } from 'hono'
import { ApiError } from './api-errors.ts'

/** Methods that change something: a page elsewhere may not send them, token or not. */
const stateChanging = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

/**
 * Refuses a state-changing request another site's page sent. A browser can
 * send a "simple" cross-site POST (text/plain, no preflight) to a server
 * without a token, e.g. `POST /v1/runs/:id/takeover`; it always says where
 * the request comes from, by `Sec-Fetch-Site` (every current browser) or else
 * by `Origin`. A request of this server's own pages (the viewer) is
 * `same-origin`, one a person typed is `none`, and API clients (curl, the
 * SDKs, the fleet's relay) send neither header: all of those pass. `same-site`
 * is refused too: another port of this host (localhost:3000) is same-site.
 */
export function crossSiteCheck(): MiddlewareHandler {
  return async (c, next) => {
    if (stateChanging.has(c.req.method)) {
      const fetchSite = c.req.header('sec-fetch-site')?.toLowerCase()
      const origin = c.req.header('origin')
      const host = c.req.header('host')?.toLowerCase()
      const foreign =
        fetchSite !== undefined
          ? fetchSite !== 'same-origin' && fetchSite !== 'none'
          : origin !== undefined && originHost(origin) !== host
      if (foreign) {
        throw new ApiError(
          403,
          'cross_site',
          `A ${c.req.method} from another site's page (${origin ?? fetchSite ?? 'unknown origin'}) is refused: only this server's own pages and API clients may change state.`,
        )
      }
    }
    await next()
  }
}

/** `http://127.0.0.1:8787` → `127.0.0.1:8787`; undefined for `null` or anything that is not an origin. */
function originHost(origin: string): string | undefined {
  try {
    return new URL(origin).host.toLowerCase()
  } catch {
    return undefined
  }
}
