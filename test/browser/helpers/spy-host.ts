import { createHash } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'

/**
 * An HTTP host on an ephemeral port that answers pages given by path and
 * records every request and WebSocket upgrade it receives, so a test can
 * assert that nothing reached it.
 */

export type PageBody = string | ((request: IncomingMessage, response: ServerResponse) => void)

export interface SpyHost {
  port: number
  /** `http://<listen>:<port>` (IPv6 listen addresses in brackets). */
  origin: string
  /** Every path requested, in order; upgrades as `upgrade <path>`. */
  hits: string[]
  pages: Map<string, PageBody>
  close(): Promise<void>
}

const types: Record<string, string> = {
  '.js': 'text/javascript',
  '.json': 'application/json',
  '.txt': 'text/plain',
}

export async function spyHost(listen = '127.0.0.1'): Promise<SpyHost> {
  const hits: string[] = []
  const pages = new Map<string, PageBody>()
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname
    hits.push(path)
    const page = pages.get(path)
    if (typeof page === 'function') return page(request, response)
    if (page === undefined) {
      response.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Secret of the blocked host</h1>')
      return
    }
    const type = Object.entries(types).find(([ext]) => path.endsWith(ext))?.[1] ?? 'text/html'
    response.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' }).end(page)
  })
  const upgraded = new Set<Duplex>()
  server.on('upgrade', (request, socket) => {
    hits.push(`upgrade ${request.url ?? '/'}`)
    upgraded.add(socket)
    socket.on('close', () => upgraded.delete(socket))
    const key = request.headers['sec-websocket-key']
    if (request.url !== '/echo' || typeof key !== 'string') return socket.destroy()
    // A minimal WebSocket server: accepts, then sends one text frame ("hello").
    const accept = createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64')
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
    )
    socket.write(Buffer.from([0x81, 5, ...Buffer.from('hello')]))
    socket.on('error', () => socket.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, listen, resolve))
  const { port } = server.address() as AddressInfo
  const host = listen.includes(':') ? `[${listen}]` : listen
  return {
    port,
    origin: `http://${host}:${port}`,
    hits,
    pages,
    close: async () => {
      for (const socket of upgraded) socket.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
