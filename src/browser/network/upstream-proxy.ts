import { connect, type Socket } from 'node:net'
import { z } from 'zod'
import { redactUrl } from '../../redact.ts'
import { canonicalHost } from '../../util/host-rules.ts'

/**
 * A proxy of the caller's choosing (a region, a residential IP, a corporate
 * egress) that a run's traffic leaves through. The run's guard proxy stays in
 * front of it: every request is still checked against the run's policy by
 * name (allowedDomains, the server's own address, cloud metadata) before the
 * guard asks the upstream proxy for it, so the boundary holds through it.
 * Its credentials are treated as secrets: never stored, logged or shown.
 */

export const ProxySchema = z
  .strictObject({
    server: z
      .string()
      .trim()
      .max(2048)
      .refine((text) => parseProxyServer(text) !== undefined, {
        message: 'must be an http:// proxy address, host:port (e.g. http://proxy.example:3128)',
      }),
    username: z.string().min(1).max(1024).optional(),
    password: z.string().min(1).max(4096).optional(),
    bypass: z
      .string()
      .max(4096)
      .optional()
      .describe(
        'Comma-separated hosts (`host`, `*.host`, `.host`) reached without the proxy, still behind the guard.',
      ),
  })
  .describe(
    "A proxy the run's traffic leaves through (HTTP, with CONNECT for TLS and WebSockets). The run's network guard stays in front: allowedDomains and the server's own addresses hold through it. Its credentials are never stored, logged or shown.",
  )

export type ProxySettings = z.output<typeof ProxySchema>

export class ProxyError extends Error {
  override name = 'ProxyError'
}

/** `http://host:port` → where to connect; undefined when it is not one. */
export function parseProxyServer(text: string): { host: string; port: number } | undefined {
  let url: URL
  try {
    url = new URL(text.includes('://') ? text : `http://${text}`)
  } catch {
    return undefined
  }
  if (url.protocol !== 'http:' || url.username || url.password || url.pathname.length > 1 || url.search)
    return undefined
  const host = canonicalHost(url.hostname)
  if (!host) return undefined
  return { host, port: url.port ? Number(url.port) : 80 }
}

/**
 * `http://user:pass@host:port` (the CLI's `--proxy`) → settings, the
 * credentials taken out of the address so they are handled as secrets.
 */
export function proxyFromUrl(text: string): ProxySettings {
  let url: URL
  try {
    url = new URL(text.includes('://') ? text : `http://${text}`)
  } catch {
    throw new ProxyError(
      `--proxy: ${JSON.stringify(redactUrl(text))} is not a proxy address (http://[user:password@]host:port)`,
    )
  }
  const username = decodeURIComponent(url.username)
  const password = decodeURIComponent(url.password)
  url.username = ''
  url.password = ''
  const parsed = ProxySchema.safeParse({
    server: url.origin,
    ...(username ? { username } : {}),
    ...(password ? { password } : {}),
  })
  if (!parsed.success) throw new ProxyError(`--proxy: ${parsed.error.issues[0]?.message ?? 'invalid'}`)
  return parsed.data
}

/** The values of a proxy that must be scrubbed wherever they would be written. */
export function proxyCredentials(proxy: ProxySettings | undefined): { label: string; value: string }[] {
  return [
    ...(proxy?.password ? [{ label: 'proxy password', value: proxy.password }] : []),
    ...(proxy?.username ? [{ label: 'proxy username', value: proxy.username }] : []),
  ]
}

/** Whether `host` skips the proxy (Chromium's bypass list syntax, hosts only). */
export function bypassesProxy(proxy: ProxySettings, host: string): boolean {
  for (const entry of (proxy.bypass ?? '').split(',')) {
    const rule = entry.trim().toLowerCase()
    if (!rule) continue
    if (rule === host) return true
    const suffix = rule.startsWith('*.') ? rule.slice(1) : rule.startsWith('.') ? rule : undefined
    if (suffix && (host.endsWith(suffix) || host === suffix.slice(1))) return true
  }
  return false
}

/** The `Proxy-Authorization` header value, when the proxy takes credentials. */
export function proxyAuthorization(proxy: ProxySettings): string | undefined {
  if (proxy.username === undefined && proxy.password === undefined) return undefined
  return `Basic ${Buffer.from(`${proxy.username ?? ''}:${proxy.password ?? ''}`).toString('base64')}`
}

/** A TCP connection to the proxy itself. */
export function connectToProxy(proxy: ProxySettings): Promise<Socket> {
  const address = parseProxyServer(proxy.server)
  if (!address) return Promise.reject(new ProxyError('The proxy address is not valid.'))
  return new Promise((resolve, reject) => {
    const socket = connect({ host: address.host, port: address.port })
    socket.once('connect', () => {
      socket.off('error', reject)
      resolve(socket)
    })
    socket.once('error', (error) =>
      reject(new ProxyError(`The proxy could not be reached: ${error.message}`)),
    )
  })
}

/** A tunnel to `host:port` through the proxy (HTTP CONNECT); the proxy's refusal is an error naming its status. */
export async function tunnelThrough(proxy: ProxySettings, host: string, port: number): Promise<Socket> {
  const socket = await connectToProxy(proxy)
  const authority = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`
  const authorization = proxyAuthorization(proxy)
  socket.write(
    `CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n${
      authorization ? `Proxy-Authorization: ${authorization}\r\n` : ''
    }\r\n`,
  )
  return new Promise((resolve, reject) => {
    let head = Buffer.alloc(0)
    const stop = () => {
      socket.off('data', onData)
      socket.off('error', fail)
      socket.off('end', closed)
    }
    const fail = (error: Error) => {
      stop()
      socket.destroy()
      reject(error)
    }
    const closed = () => fail(new ProxyError('The proxy closed the connection during CONNECT.'))
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk])
      const end = head.indexOf('\r\n\r\n')
      if (end < 0) {
        if (head.length > 16_384) fail(new ProxyError('The proxy answered CONNECT with an oversized header.'))
        return
      }
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(head.subarray(0, end).toString('latin1'))?.[1]
      if (status !== '200')
        return fail(new ProxyError(`The proxy refused the tunnel (${status ?? 'no status'}).`))
      stop()
      // Bytes after the header already belong to the tunnel.
      const rest = head.subarray(end + 4)
      if (rest.length > 0) socket.unshift(rest)
      resolve(socket)
    }
    socket.on('data', onData)
    socket.once('error', fail)
    socket.once('end', closed)
  })
}
