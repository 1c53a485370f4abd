import { lookup } from 'node:dns/promises'
import type { LookupFunction } from 'node:net'
import { NetworkPolicy } from '../browser/network/network-policy.ts'
import { addressKey, canonicalAddress, classifyAddress, isLocalhostName } from '../util/addresses.ts'
import {
  anyRuleMatches,
  effectivePort,
  formatOrigin,
  type HostRule,
  parseHostRules,
} from '../util/host-rules.ts'

/** A webhook URL no delivery may reach; the message says why, for the caller's 400 or the attempt's record. */
export class WebhookTargetError extends Error {
  override name = 'WebhookTargetError'
}

export interface WebhookRulesOptions {
  /** SEXTANT_WEBHOOK_HOSTS: the only hosts webhooks may reach; absent: any, within the rules below. */
  hosts?: readonly string[] | undefined
  /** `host:port` origins of the server itself, refused whatever `hosts` says. */
  deniedOrigins?: () => readonly string[]
  /** SEXTANT_BLOCK_PRIVATE: private, link-local and loopback addresses are refused, as they are to browsers. */
  blockPrivateNetworks?: boolean | undefined
}

/**
 * Where a webhook may be delivered: the network rules a run's browser obeys
 * (cloud metadata and the server's own origins are never reached, judged by
 * browser/network/network-policy.ts) plus the allow-list, and loopback only when the allow-list
 * names it: a webhook that reached this machine could reach what listens on it.
 * Checked by name when the run is requested, then on every address the name
 * resolves to when delivering, through the lookup the connection itself uses,
 * so a DNS answer cannot change between the check and the connection.
 */
export class WebhookRules {
  readonly #hosts: HostRule[] | undefined
  readonly #deniedOrigins: () => readonly string[]
  readonly #blockPrivate: boolean

  constructor(options: WebhookRulesOptions = {}) {
    this.#hosts = options.hosts ? parseHostRules(options.hosts) : undefined
    this.#deniedOrigins = options.deniedOrigins ?? (() => [])
    this.#blockPrivate = options.blockPrivateNetworks ?? false
  }

  /** Throws WebhookTargetError when `url` may not be delivered to, by its name alone. */
  check(url: string): URL {
    let parsed: URL
    try {
      parsed = new URL(url)
    } catch {
      throw new WebhookTargetError(`The webhook "${url.slice(0, 200)}" is not a URL.`)
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      throw new WebhookTargetError('The webhook must be an http(s) URL.')
    if (parsed.username || parsed.password)
      throw new WebhookTargetError(
        'The webhook URL may not carry credentials: the signature authenticates it.',
      )
    const host = parsed.hostname.replace(/^\[|\]$/g, '')
    const port = effectivePort(parsed)
    const origin = formatOrigin(host, port)
    // What no run may reach is refused first, whatever SEXTANT_WEBHOOK_HOSTS lists.
    const byName = this.#policy().refusalByName(host, port)
    if (byName) throw new WebhookTargetError(`The webhook's host ${origin} is refused: it is ${byName}.`)
    if (this.#hosts && !anyRuleMatches(this.#hosts, host, port))
      throw new WebhookTargetError(`The webhook's host ${origin} is not in SEXTANT_WEBHOOK_HOSTS.`)
    const literal = canonicalAddress(host)
    const address = literal ?? (isLocalhostName(host) ? '127.0.0.1' : undefined)
    if (address !== undefined) this.#checkAddress(address, host, port, origin)
    return parsed
  }

  /** Resolves as the connection does, refusing every address no webhook may reach (see check). */
  lookupFor(url: URL): LookupFunction {
    const port = effectivePort(url)
    const policy = this.#policy()
    const host = url.hostname.replace(/^\[|\]$/g, '')
    return (hostname, options, callback) => {
      void (async () => {
        const found = isLocalhostName(hostname)
          ? [{ address: '127.0.0.1', family: 4 }]
          : await lookup(hostname, { all: true, verbatim: true })
        // One refused address refuses the name: a name that also points inside is not trusted.
        for (const { address } of found) {
          const refusal = policy.refusalByAddress(address, port)
          if (refusal)
            throw new WebhookTargetError(`The webhook's host ${hostname} resolves to ${refusal}, ${address}.`)
          this.#checkAddress(address, host, port, formatOrigin(hostname, port))
        }
        return found
      })().then(
        (found) => {
          if (options.all) callback(null, found)
          else {
            const first = found[0]
            if (first) callback(null, first.address, first.family)
            else callback(new WebhookTargetError(`The webhook's host ${hostname} has no address.`), '', 0)
          }
        },
        (error: unknown) => callback(error as NodeJS.ErrnoException, '', 0),
      )
    }
  }

  /**
   * Loopback, and under SEXTANT_BLOCK_PRIVATE every address that is not
   * public, is reached only when SEXTANT_WEBHOOK_HOSTS names the very host:
   * the operator, not the run's caller, opened it.
   */
  #checkAddress(address: string, host: string, port: number, origin: string): void {
    if (this.#mayReachInside(host, port)) return
    if (addressKey(address) === 'loopback')
      throw new WebhookTargetError(
        `The webhook's host ${origin} is refused: it is a loopback address. List it in SEXTANT_WEBHOOK_HOSTS to allow it.`,
      )
    const kind = classifyAddress(address)
    if (this.#blockPrivate && kind !== undefined && kind !== 'public')
      throw new WebhookTargetError(
        `The webhook's host ${origin} is refused: it is a ${kind} address (SEXTANT_BLOCK_PRIVATE). List it in SEXTANT_WEBHOOK_HOSTS to allow it.`,
      )
  }

  #policy(): NetworkPolicy {
    return new NetworkPolicy({ deniedOrigins: this.#deniedOrigins() })
  }

  /** Whether SEXTANT_WEBHOOK_HOSTS names the very host (not by a wildcard). */
  #mayReachInside(host: string, port: number): boolean {
    return this.#hosts?.some((rule) => !rule.wildcard && anyRuleMatches([rule], host, port)) ?? false
  }
}
