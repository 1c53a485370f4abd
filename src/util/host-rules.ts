import { canonicalAddress } from './addresses.ts'

/**
 * Host rules as runs write them in `allowedDomains` and denied origins:
 *
 * - `example.com`: that host alone, every port;
 * - `example.com:8080`: that host on that port alone;
 * - `*.example.com` (optionally `:port`): every subdomain at any depth **and**
 *   the apex `example.com`, since "the site and everything under it" is what
 *   a leading wildcard is written for;
 * - IPv6 literals in brackets, `[::1]` or `[::1]:8080`.
 *
 * Scheme and path are ignored (`https://Example.com/x` is `example.com`).
 * Hosts are compared after URL parsing, so case, trailing dots and IDN
 * (punycode) spellings of one host are one host.
 */

export interface HostRule {
  /** Canonical host: lower case, punycode, no trailing dot, IPv6 without brackets. */
  host: string
  /** Undefined: every port. */
  port: number | undefined
  wildcard: boolean
}

/** `https://Example.COM./x` → `example.com`; `[::1]` → `::1`; IDN → punycode. Undefined when not a host. */
export function canonicalHost(host: string): string | undefined {
  const bare = host.trim().replace(/^\[|\]$/g, '')
  if (!bare) return undefined
  try {
    const parsed = new URL(`http://${bare.includes(':') ? `[${bare}]` : bare}/`)
    return parsed.hostname.replace(/^\[|\]$/g, '').replace(/\.+$/, '')
  } catch {
    return undefined
  }
}

/** Parses one entry; undefined when it names no host. */
export function parseHostRule(entry: string): HostRule | undefined {
  let text = entry.trim().toLowerCase()
  text = text.replace(/^[a-z][a-z0-9+.-]*:\/\//, '')
  text = text.split(/[/?#]/)[0] ?? ''
  const wildcard = text.startsWith('*.')
  if (wildcard) text = text.slice(2)
  let port: number | undefined
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text)
  let hostText = text
  if (bracketed) {
    hostText = bracketed[1] ?? ''
    port = bracketed[2] === undefined ? undefined : Number(bracketed[2])
  } else {
    const withPort = /^([^:]+):(\d+)$/.exec(text)
    if (withPort) {
      hostText = withPort[1] ?? ''
      port = Number(withPort[2])
    }
  }
  if (port !== undefined && !(port > 0 && port < 65_536)) return undefined
  const host = canonicalHost(hostText)
  return host ? { host, port, wildcard } : undefined
}

export function parseHostRules(entries: readonly string[]): HostRule[] {
  return entries.flatMap((entry) => parseHostRule(entry) ?? [])
}

/** The port a URL reaches: its own, or its scheme's default. */
export function effectivePort(url: URL): number {
  if (url.port) return Number(url.port)
  return url.protocol === 'https:' || url.protocol === 'wss:' ? 443 : 80
}

export function ruleMatches(rule: HostRule, host: string, port: number): boolean {
  if (rule.port !== undefined && rule.port !== port) return false
  if (host === rule.host) return true
  // One address in two spellings (`[::ffff:7f00:1]`, `127.0.0.1`) is one host.
  const address = canonicalAddress(host)
  if (address !== undefined) return address === canonicalAddress(rule.host)
  return rule.wildcard && host.endsWith(`.${rule.host}`)
}

export function anyRuleMatches(rules: readonly HostRule[], host: string, port: number): boolean {
  return rules.some((rule) => ruleMatches(rule, host, port))
}

/** `host:port` as a person writes it, IPv6 in brackets. */
export function formatOrigin(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`
}
