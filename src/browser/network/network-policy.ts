import { lookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import {
  addressKey,
  canonicalAddress,
  isLocalhostName,
  isMetadataAddress,
  isMetadataHost,
  isPrivateAddress,
} from '../../util/addresses.ts'
import { anyRuleMatches, formatOrigin, type HostRule, parseHostRules } from '../../util/host-rules.ts'

/**
 * Where a run's browser may connect. Checked twice: by name (cheap, before a
 * navigation starts, and first in the proxy), then by every address the name
 * resolves to (in the proxy, which connects to exactly the address it
 * checked, so a DNS answer cannot change between check and connection).
 */

export interface NetworkPolicyOptions {
  allowedDomains?: readonly string[] | undefined
  /** `host:port` origins refused whatever `allowedDomains` says (the server's own). */
  deniedOrigins?: readonly string[] | undefined
  blockPrivateNetworks?: boolean | undefined
}

/** Every address a name resolves to (the system resolver unless a test gives one). */
export type Resolver = (host: string) => Promise<string[]>

const systemResolver: Resolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address)

export type Resolution = { addresses: string[] } | { refused: string } | { failed: string }

export class NetworkPolicy {
  readonly #allowed: HostRule[] | undefined
  readonly #denied: HostRule[]
  /** Denied origins whose host is an address or a localhost name, by address key: `loopback:8787`. */
  readonly #deniedAddresses: Set<string>
  readonly #blockPrivate: boolean
  readonly #resolver: Resolver

  constructor(options: NetworkPolicyOptions, resolver: Resolver = systemResolver) {
    this.#resolver = resolver
    this.#allowed = options.allowedDomains ? parseHostRules(options.allowedDomains) : undefined
    this.#denied = parseHostRules(options.deniedOrigins ?? [])
    this.#deniedAddresses = new Set(
      this.#denied.flatMap((rule) => {
        const key = isLocalhostName(rule.host)
          ? 'loopback'
          : canonicalAddress(rule.host) !== undefined
            ? addressKey(rule.host)
            : ''
        return key ? [`${key}:${rule.port ?? '*'}`] : []
      }),
    )
    this.#blockPrivate = options.blockPrivateNetworks ?? false
  }

  get restrictsHosts(): boolean {
    return this.#allowed !== undefined
  }

  /** Why `host:port` is refused by its name alone (host canonical, IPv6 without brackets), or undefined. */
  refusalByName(host: string, port: number): string | undefined {
    if (isMetadataHost(host)) return 'a cloud metadata address'
    if (anyRuleMatches(this.#denied, host, port)) return "the Sextant server's own address"
    const literal = canonicalAddress(host)
    if (literal !== undefined || isLocalhostName(host)) {
      const refusal = this.refusalByAddress(literal ?? '127.0.0.1', port)
      if (refusal) return refusal
    }
    if (this.#allowed && !anyRuleMatches(this.#allowed, host, port)) return notAllowed
    return undefined
  }

  /**
   * Why a run may not use `host:port` as its upstream proxy, or undefined: the
   * addresses no run may reach (cloud metadata, the server's own) are no
   * proxy either. allowedDomains names destinations, not the way out.
   */
  refusalAsProxy(host: string, port: number): string | undefined {
    if (isMetadataHost(host)) return 'a cloud metadata address'
    if (anyRuleMatches(this.#denied, host, port)) return "the Sextant server's own address"
    const literal = canonicalAddress(host)
    if (literal !== undefined || isLocalhostName(host)) {
      const key = addressKey(literal ?? '127.0.0.1')
      if (this.#deniedAddresses.has(`${key}:${port}`) || this.#deniedAddresses.has(`${key}:*`))
        return "the Sextant server's own address"
    }
    return undefined
  }

  /** Why connecting to `address:port` is refused, or undefined. */
  refusalByAddress(address: string, port: number): string | undefined {
    if (isMetadataAddress(address)) return 'a cloud metadata address'
    const key = addressKey(address)
    if (this.#deniedAddresses.has(`${key}:${port}`) || this.#deniedAddresses.has(`${key}:*`))
      return "the Sextant server's own address"
    if (this.#blockPrivate && isPrivateAddress(address))
      return 'a private network address (blockPrivateNetworks)'
    return undefined
  }

  /** The addresses the proxy may connect to for `host:port`, or why not. */
  async resolve(host: string, port: number): Promise<Resolution> {
    const byName = this.refusalByName(host, port)
    if (byName) return { refused: byName }
    let addresses: string[]
    const literal = canonicalAddress(host)
    // Connect to the address as written (a NAT64 address is reached through NAT64); it was judged canonical.
    if (literal !== undefined) addresses = [isIP(host) ? host : literal]
    else if (isLocalhostName(host)) addresses = ['127.0.0.1', '::1']
    else {
      try {
        addresses = await this.#resolver(host)
      } catch {
        return { failed: `${formatOrigin(host, port)} could not be resolved` }
      }
    }
    // One refused address refuses the name: a name that also points inside is not trusted.
    for (const address of addresses) {
      const refusal = this.refusalByAddress(address, port)
      if (refusal) return { refused: `${refusal}, ${address}` }
    }
    return { addresses }
  }
}

export const notAllowed = 'not in allowedDomains'

/** What the model reads when a top-level navigation is refused (a tool result or a note). */
export function refusedNavigationText(url: string, origin: string, reason: string): string {
  if (reason === notAllowed)
    return `Navigation to ${url.slice(0, 200)} blocked: domain not in allowedDomains.`
  return `Navigation to ${url.slice(0, 200)} refused: ${origin} is ${reason}.`
}

/** The note the model reads when a request is refused. */
export function refusedNote(origin: string, reason: string): string {
  return `Request to ${origin} refused: ${reason}.`
}
