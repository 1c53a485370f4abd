import {
  canonicalHost,
  effectivePort,
  formatOrigin,
  parseHostRule,
  ruleMatches,
} from '../../util/host-rules.ts'
import { NetworkPolicy, refusedNavigationText } from './network-policy.ts'
import { refusedScheme } from './scheme-guard.ts'

/**
 * What the model may open, checked before a navigation starts (startUrl,
 * navigate, open_tab). The boundary itself, which also covers what pages do
 * on their own, is `network/session-guard.ts`; rules are in
 * `util/host-rules.ts` and `network/network-policy.ts`.
 */

export interface UrlPolicy {
  allowedDomains?: string[] | undefined
  /** Lets navigate/open_tab open file:, data:, chrome: and javascript: URLs. */
  allowUnsafeSchemes?: boolean | undefined
  /** The run's whole network policy (allowedDomains, denied origins, private networks). */
  network?: NetworkPolicy | undefined
}

/** `example.com/path` → `https://example.com/path`; `localhost:3000` → `http://localhost:3000`. */
export function normalizeUrl(input: string): string {
  const text = input.trim()
  if (/^[a-z][a-z0-9+.-]*:/i.test(text) && !/^(localhost|[\w-]+(\.[\w-]+)+):\d+/i.test(text)) return text
  const local = /^(localhost|127\.|\[::1\]|0\.0\.0\.0)/i.test(text)
  return `${local ? 'http' : 'https'}://${text}`
}

/** `https://Example.com/x` → `example.com`, `*.example.com` → `example.com`; keeps a port when one is given. */
export function normalizeDomain(entry: string): string {
  const rule = parseHostRule(entry)
  if (!rule) return ''
  return rule.port === undefined ? rule.host : formatOrigin(rule.host, rule.port)
}

/** Whether `url`'s host and port match one of the `allowedDomains` entries (see `util/host-rules.ts`). */
export function isHostAllowed(url: URL, allowedDomains: string[]): boolean {
  const host = canonicalHost(url.hostname)
  if (!host) return false
  const port = effectivePort(url)
  return allowedDomains.some((entry) => {
    const rule = parseHostRule(entry)
    return rule !== undefined && ruleMatches(rule, host, port)
  })
}

/** Why the model may not open `url`, or undefined when it may. */
export function navigationRefusal(url: string, policy: UrlPolicy): string | undefined {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return `"${url.slice(0, 200)}" is not a valid URL.`
  }
  const scheme = refusedScheme(parsed.href)
  if (scheme) return policy.allowUnsafeSchemes ? undefined : refusal(parsed, scheme)
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined
  const network = policy.network ?? new NetworkPolicy({ allowedDomains: policy.allowedDomains })
  const host = canonicalHost(parsed.hostname) ?? parsed.hostname
  const port = effectivePort(parsed)
  const reason = network.refusalByName(host, port)
  return reason ? refusedNavigationText(url, formatOrigin(host, port), reason) : undefined
}

function refusal(url: URL, scheme: string): string {
  return `Navigation to ${url.href.slice(0, 100)} refused: ${scheme} URLs are not allowed in this run.`
}
