import { hostname } from 'node:os'
import type { MiddlewareHandler } from 'hono'
import { ownAddressNames } from '../../browser/network/own-origins.ts'
import { isLoopbackHost } from '../../config.ts'
import { ApiError } from './api-errors.ts'

/**
 * The names a request may carry in its `Host` header: the names and addresses
 * that reach the listener (loopback names always; the machine's addresses and
 * name when it listens beyond loopback), and `extra` (SEXTANT_ALLOWED_HOSTS)
 * for the names it is reached by (a DNS name, a load balancer), `*.example.com`
 * matching every subdomain.
 */
export function ownHostNames(listenHost: string, extra: readonly string[] = []): string[] {
  const names = new Set(ownAddressNames(listenHost))
  if (!isLoopbackHost(listenHost)) names.add(hostname().toLowerCase())
  for (const name of extra) names.add(name.trim().toLowerCase())
  return [...names]
}

/**
 * Refuses requests whose `Host` is not one of the server's own names. A page
 * on attacker.example that re-points its DNS name at 127.0.0.1 (DNS
 * rebinding) reaches this server with `Host: attacker.example` and is
 * refused here, before any route or token check.
 */
export function hostCheck(allowed: readonly string[]): MiddlewareHandler {
  const exact = new Set(allowed.filter((name) => !name.startsWith('*.')))
  const suffixes = allowed.filter((name) => name.startsWith('*.')).map((name) => name.slice(1))
  return async (c, next) => {
    const name = hostWithoutPort(c.req.header('host') ?? '')
    const ok =
      exact.has(name) || suffixes.some((suffix) => name.endsWith(suffix) && name.length > suffix.length)
    if (!ok) {
      throw new ApiError(
        403,
        'host_not_allowed',
        `This server does not answer to the host "${name || '(none)'}". Reach it by one of its own names, or add the name to SEXTANT_ALLOWED_HOSTS.`,
      )
    }
    await next()
  }
}

function hostWithoutPort(header: string): string {
  const host = header.trim().toLowerCase()
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1)
  const colon = host.indexOf(':')
  return (colon === -1 ? host : host.slice(0, colon)).replace(/\.$/, '')
}
