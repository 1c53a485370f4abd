import { readFile } from 'node:fs/promises'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { extname, join, normalize } from 'node:path'

/**
 * A tiny static server on 127.0.0.1 and an ephemeral port, for fixtures and
 * real apps. `routes` answer special paths (a response that never ends, a
 * download); everything else is a file under `root`.
 */

export type RouteHandler = (request: IncomingMessage, response: ServerResponse) => void

export interface StaticServer {
  url: string
  close(): Promise<void>
}

const types: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.csv': 'text/csv',
  '.txt': 'text/plain; charset=utf-8',
}

export async function serveFolder(
  root: string,
  routes: Record<string, RouteHandler> = {},
): Promise<StaticServer> {
  const open = new Set<ServerResponse>()
  const server = createServer(async (request, response) => {
    open.add(response)
    response.on('close', () => open.delete(response))
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://localhost').pathname)
    const route = routes[path]
    if (route) {
      route(request, response)
      return
    }
    const file = normalize(join(root, path.endsWith('/') ? `${path}index.html` : path))
    if (!file.startsWith(normalize(root))) {
      response.writeHead(403).end()
      return
    }
    try {
      const body = await readFile(file)
      response.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' })
      response.end(body)
    } catch {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found')
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      for (const response of open) response.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
