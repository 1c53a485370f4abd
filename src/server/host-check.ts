import { hostname, networkInterfaces } from 'node:os'
import type { MiddlewareHandler } from 'hono'
import { isLoopbackHost } from '../config.ts'
import { ApiError } from './errors.ts'

const loopbackNames = ['localhost', '127.0.0.1', '[::1]']

/**
 * The names a request may carry in its `Host` header. A server on loopback
 * answers only to loopback names; one on another address also to the
 * machine's own name and addresses; `extra` (SEXTANT_ALLOWED_HOSTS) adds the
 * names it is reached by (a DNS name, a load balancer), `*.example.com`
 * matching every subdomain.
 */
export function ownHostNames(listenHost: string, extra: readonly string[] = []): string[] {
  const names = new Set(loopbackNames)
  if (!isLoopbackHost(listenHost)) {
    names.add(hostname().toLowerCase())
    const wildcard = listenHost === '0.0.0.0' || listenHost === '::'
    if (!wildcard) names.add(bracketed(listenHost.toLowerCase()))
    else
      for (const addresses of Object.values(networkInterfaces()))
        for (const address of addresses ?? []) names.add(bracketed(address.address.toLowerCase()))
  }
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

function bracketed(address: string): string {
  return address.includes(':') && !address.startsWith('[') ? `[${address}]` : address
}
