import type { BrowserContext, Route } from 'playwright-core'

/**
 * What a run may reach. `allowedDomains` is enforced at the network layer for
 * navigations and subresources alike (an allowed domain allows its
 * subdomains); `navigate` and `open_tab` also refuse local and script URLs
 * unless the run enables them.
 */

export interface UrlPolicy {
  allowedDomains?: string[] | undefined
  /** Lets navigate/open_tab open file:, data:, chrome: and javascript: URLs. */
  allowUnsafeSchemes?: boolean | undefined
}

const unsafeSchemes = new Set([
  'file:',
  'chrome:',
  'javascript:',
  'data:',
  'view-source:',
  'chrome-extension:',
  'blob:',
])

/** `example.com/path` → `https://example.com/path`; `localhost:3000` → `http://localhost:3000`. */
export function normalizeUrl(input: string): string {
  const text = input.trim()
  if (/^[a-z][a-z0-9+.-]*:/i.test(text) && !/^(localhost|[\w-]+(\.[\w-]+)+):\d+/i.test(text)) return text
  const local = /^(localhost|127\.|\[::1\]|0\.0\.0\.0)/i.test(text)
  return `${local ? 'http' : 'https'}://${text}`
}

/** `https://Example.com/x` or `*.example.com` → `example.com`; keeps a port when one is given. */
export function normalizeDomain(entry: string): string {
  let text = entry.trim().toLowerCase()
  text = text.replace(/^[a-z][a-z0-9+.-]*:\/\//, '')
  text = text.split('/')[0] ?? ''
  return text.replace(/^\*?\./, '')
}

export function isHostAllowed(url: URL, allowedDomains: string[]): boolean {
  const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, '')
  return allowedDomains.some((entry) => {
    const domain = normalizeDomain(entry)
    if (domain.includes(':') && !domain.startsWith('[')) return url.host.toLowerCase() === domain
    const bare = domain.replace(/^\[|\]$/g, '')
    return host === bare || host.endsWith(`.${bare}`)
  })
}

/** Why the model may not open `url`, or undefined when it may. */
export function navigationRefusal(url: string, policy: UrlPolicy): string | undefined {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return `"${url}" is not a valid URL.`
  }
  if (parsed.protocol === 'about:')
    return parsed.href === 'about:blank' || policy.allowUnsafeSchemes ? undefined : refusal(parsed)
  if (unsafeSchemes.has(parsed.protocol)) return policy.allowUnsafeSchemes ? undefined : refusal(parsed)
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return refusal(parsed)
  if (policy.allowedDomains && !isHostAllowed(parsed, policy.allowedDomains)) return blockedText(url)
  return undefined
}

function refusal(url: URL): string {
  return `Navigation to ${url.href.slice(0, 100)} refused: ${url.protocol} URLs are not allowed in this run.`
}

export function blockedText(url: string): string {
  return `Navigation to ${url.slice(0, 200)} blocked: domain not in allowedDomains.`
}

/**
 * Aborts every request to a host outside `allowedDomains`; a blocked
 * navigation of a top-level page is reported through `onBlockedNavigation`.
 */
export async function installNetworkGuard(
  context: BrowserContext,
  allowedDomains: string[],
  onBlockedNavigation: (url: string) => void,
): Promise<void> {
  await context.route('**/*', async (route: Route) => {
    const request = route.request()
    let allowed = true
    try {
      const url = new URL(request.url())
      allowed = (url.protocol !== 'http:' && url.protocol !== 'https:') || isHostAllowed(url, allowedDomains)
    } catch {
      allowed = false
    }
    if (allowed) {
      await route.fallback().catch(() => {})
      return
    }
    if (request.isNavigationRequest() && isTopLevel(request)) onBlockedNavigation(request.url())
    await route.abort('blockedbyclient').catch(() => {})
  })
}

function isTopLevel(request: ReturnType<Route['request']>): boolean {
  try {
    return request.frame().parentFrame() === null
  } catch {
    return false
  }
}
