import { anyRuleMatches, canonicalHost, effectivePort, parseHostRules } from '../util/host-rules.ts'

/**
 * Whether a scoped secret may be typed on `pageUrl`: the same entry syntax and
 * meaning as `allowedDomains` (`host`, `host:port`, `*.host`; see
 * util/host-rules.ts), and only on web pages.
 */
export function hostMatchesDomains(pageUrl: string, domains: string[]): boolean {
  let url: URL
  try {
    url = new URL(pageUrl)
  } catch {
    return false
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false
  const host = canonicalHost(url.hostname)
  return host !== undefined && anyRuleMatches(parseHostRules(domains), host, effectivePort(url))
}
