import { createServer, request } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface RoundRobinProxy {
  url: string
  /** The backend the next request goes to. */
  next(): string
  /** The backend each request went to, in order. */
  served: string[]
  close(): Promise<void>
}

/**
 * A load balancer as small as one can be: each request goes to the next
 * backend in turn, its body and its answer streamed through (SSE included),
 * its Host rewritten to the backend's. Nothing sticks a run to a server.
 */
export async function startRoundRobinProxy(backends: readonly string[]): Promise<RoundRobinProxy> {
  let turn = 0
  const served: string[] = []
  const server = createServer((incoming, outgoing) => {
    const backend = new URL(backends[turn++ % backends.length] ?? '')
    served.push(backend.origin)
    const upstream = request(
      backend,
      { method: incoming.method, path: incoming.url, headers: { ...incoming.headers, host: backend.host } },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(outgoing)
      },
    )
    upstream.on('error', (error) => {
      if (!outgoing.headersSent) outgoing.writeHead(502, { 'content-type': 'text/plain' })
      outgoing.end(`proxy: ${error.message}`)
    })
    outgoing.on('close', () => upstream.destroy())
    incoming.pipe(upstream)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    next: () => new URL(backends[turn % backends.length] ?? '').origin,
    served,
    close: () => {
      server.closeAllConnections()
      return new Promise((resolve) => server.close(() => resolve()))
    },
  }
}
