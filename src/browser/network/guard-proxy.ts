import { createServer, request as httpRequest, type IncomingMessage } from 'node:http'
import { type AddressInfo, connect, type Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import { describeError } from '../../util/describe-error.ts'
import { canonicalHost, formatOrigin } from '../../util/host-rules.ts'
import type { NetworkPolicy } from './network-policy.ts'
import {
  bypassesProxy,
  connectToProxy,
  type ProxySettings,
  proxyAuthorization,
  tunnelThrough,
} from './upstream-proxy.ts'

/**
 * A forward proxy on 127.0.0.1 that every request of a run's browser context
 * goes through (Chromium's per-context proxy, loopback included). It is the
 * one place that sees every connection whoever makes it: pages, redirect
 * hops, WebSockets, dedicated/shared/service workers, prefetch, prerender,
 * beacons. Each connection is checked against the run's policy by name, then
 * by the addresses the name resolves to, and made to exactly the address that
 * was checked (no second DNS lookup, so no rebinding between check and use).
 *
 * With an upstream proxy (the run's `proxy`), a connection the policy allows
 * leaves through it instead: a CONNECT tunnel, or a plain request in absolute
 * form. The name is checked as before; the addresses too when this machine
 * can resolve it, and a name only the proxy's network knows is asked of the
 * proxy by name (the proxy resolves it, in its own network).
 */

/** Set on the answer to a refused plain-HTTP request. */
export const refusedHeader = 'x-sextant-refused'

export interface GuardProxy {
  /** `http://127.0.0.1:<port>`, for the context's `proxy.server`. */
  server: string
  close(): Promise<void>
}

export type RefusalListener = (origin: string, reason: string) => void

/** A connection the policy allowed: to the target itself, or to the upstream proxy that forwards plain requests. */
interface Opened {
  socket: Socket
  /** Plain HTTP goes to the upstream proxy, in absolute form, with its credentials. */
  viaProxy?: ProxySettings
}

export async function startGuardProxy(
  policy: NetworkPolicy,
  onRefused: RefusalListener,
  upstream?: ProxySettings,
): Promise<GuardProxy> {
  const sockets = new Set<Duplex>()
  const track = (socket: Duplex) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  }

  /** Resolves and connects to `host:port` (`tunnel`: for CONNECT), or answers why not (and tells the run). */
  const open = async (
    hostText: string,
    port: number,
    tunnel: boolean,
  ): Promise<Opened | { status: number; text: string }> => {
    const host = canonicalHost(hostText)
    if (!host || !(port > 0 && port < 65_536)) return { status: 400, text: 'Bad request target.' }
    const origin = formatOrigin(host, port)
    const resolution = await policy.resolve(host, port)
    if ('refused' in resolution) {
      onRefused(origin, resolution.refused)
      return { status: 403, text: `Sextant refused the request to ${origin}: ${resolution.refused}.` }
    }
    if (upstream && !bypassesProxy(upstream, host)) {
      try {
        if (tunnel) return { socket: await tunnelThrough(upstream, host, port) }
        return { socket: await connectToProxy(upstream), viaProxy: upstream }
      } catch (error) {
        return {
          status: 502,
          text: `${origin} could not be reached through the proxy: ${describeError(error)}`,
        }
      }
    }
    if ('failed' in resolution) return { status: 502, text: `${resolution.failed}.` }
    let lastError = 'no address'
    for (const address of resolution.addresses) {
      try {
        return { socket: await connectTo(address, port) }
      } catch (error) {
        lastError = describeError(error)
      }
    }
    return { status: 502, text: `${origin} could not be reached: ${lastError}` }
  }

  const server = createServer((request, response) => {
    const target = parseAbsolute(request.url)
    if (!target) {
      response.writeHead(400).end('This proxy only forwards absolute http:// URLs.')
      return
    }
    void open(target.hostname, target.port, false).then(
      (opened) => {
        if ('status' in opened) {
          // The header lets a tool tell a refusal from a page that answered 403 itself.
          response.writeHead(opened.status, {
            'content-type': 'text/plain',
            'cache-control': 'no-store',
            ...(opened.status === 403 ? { [refusedHeader]: '1' } : {}),
          })
          response.end(opened.text)
          return
        }
        const { socket, viaProxy } = opened
        track(socket)
        // The browser gave up while the name was checked: nothing to forward.
        if (response.destroyed) return socket.destroy()
        const headers = { ...request.headers }
        delete headers['proxy-connection']
        delete headers['proxy-authorization']
        const authorization = viaProxy && proxyAuthorization(viaProxy)
        if (authorization) headers['proxy-authorization'] = authorization
        // One request per upstream connection: nothing is pooled past the check that allowed it.
        headers.connection = 'close'
        const path = `${target.pathname}${target.search}`
        const forwarded = httpRequest(
          {
            createConnection: () => socket,
            method: request.method,
            // A proxy takes the request in absolute form: the target it was checked for, not the Host header.
            path: viaProxy
              ? `http://${formatOrigin(canonicalHost(target.hostname) ?? target.hostname, target.port)}${path}`
              : path,
            headers,
            setHost: false,
          },
          (answer) => {
            response.writeHead(answer.statusCode ?? 502, answer.rawHeaders)
            answer.pipe(response)
          },
        )
        forwarded.on('error', () => response.destroy())
        response.on('close', () => forwarded.destroy())
        request.pipe(forwarded)
      },
      () => response.destroy(),
    )
  })

  server.on('connect', (request: IncomingMessage, client: Duplex, head: Buffer) => {
    track(client)
    client.on('error', () => client.destroy())
    const target = parseAuthority(request.url)
    if (!target) {
      client.end('HTTP/1.1 400 Bad Request\r\n\r\n')
      return
    }
    void open(target.host, target.port, true).then(
      (opened) => {
        if ('status' in opened) {
          client.end(`HTTP/1.1 ${opened.status} Refused\r\ncontent-length: 0\r\n\r\n`)
          return
        }
        if (client.destroyed) return opened.socket.destroy()
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n')
        if (head.length > 0) opened.socket.write(head)
        join(client, opened.socket, track)
      },
      () => client.destroy(),
    )
  })

  // Chromium tunnels ws:// through CONNECT too. An absolute-form upgrade has no 'upgrade' listener: Node drops
  // it or hands it to the request handler above, which checks it like any request and forwards no upgrade.
  server.on('clientError', (_error, socket) => socket.destroy())
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as AddressInfo
  return {
    server: `http://127.0.0.1:${port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

function connectTo(address: string, port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: address, port })
    socket.once('connect', () => {
      socket.off('error', reject)
      resolve(socket)
    })
    socket.once('error', reject)
  })
}

/** Joins the browser's side and the server's side of a connection until either ends. */
function join(client: Duplex, upstream: Socket, track: (socket: Duplex) => void): void {
  track(upstream)
  upstream.on('error', () => client.destroy())
  client.on('error', () => upstream.destroy())
  client.pipe(upstream)
  upstream.pipe(client)
}

function parseAbsolute(
  url: string | undefined,
): { hostname: string; port: number; pathname: string; search: string } | undefined {
  if (!url) return undefined
  try {
    const parsed = new URL(url)
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'ws:') return undefined
    return {
      hostname: parsed.hostname,
      port: parsed.port ? Number(parsed.port) : 80,
      pathname: parsed.pathname,
      search: parsed.search,
    }
  } catch {
    return undefined
  }
}

function parseAuthority(authority: string | undefined): { host: string; port: number } | undefined {
  const match = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(authority ?? '')
  if (!match?.[1] || !match[2]) return undefined
  return { host: match[1], port: Number(match[2]) }
}
