import { readFile } from 'node:fs/promises'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { extname, join, normalize } from 'node:path'

/**
 * The one local web server of the tests (no internet in tests): on 127.0.0.1
 * and an ephemeral port, it answers `routes` (special answers: a response
 * that never ends, a download), then `pages` (HTML by path), then files
 * under `root`, else a 404 page.
 */

export type RouteHandler = (request: IncomingMessage, response: ServerResponse) => void

/** A page's HTML, or a function of the requested URL (its query) that returns it. */
export type PageSource = string | ((url: URL) => string)

export interface PageServerOptions {
  root?: string
  pages?: Record<string, PageSource>
  routes?: Record<string, RouteHandler>
}

export interface PageServer {
  /** http://127.0.0.1:<port>, without a trailing slash. */
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

const html = 'text/html; charset=utf-8'
const notFound = '<!doctype html><title>Not found</title><h1>Not found</h1>'

export async function startPageServer(options: PageServerOptions): Promise<PageServer> {
  const { root, pages = {}, routes = {} } = options
  const open = new Set<ServerResponse>()
  const server = createServer(async (request, response) => {
    open.add(response)
    response.on('close', () => open.delete(response))
    const url = new URL(request.url ?? '/', 'http://localhost')
    const path = decodeURIComponent(url.pathname)
    const route = routes[path]
    if (route) return route(request, response)
    const page = pages[path]
    if (page !== undefined) {
      response.writeHead(200, { 'content-type': html })
      return void response.end(typeof page === 'string' ? page : page(url))
    }
    if (root !== undefined) {
      const file = normalize(join(root, path.endsWith('/') ? `${path}index.html` : path))
      if (!file.startsWith(normalize(root))) return void response.writeHead(403).end()
      try {
        const body = await readFile(file)
        response.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' })
        return void response.end(body)
      } catch {
        // Answered as any other unknown path.
      }
    }
    response.writeHead(404, { 'content-type': html }).end(notFound)
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

/** Fixture files and real apps under `root`, plus special `routes`. */
export function serveFolder(root: string, routes: Record<string, RouteHandler> = {}): Promise<PageServer> {
  return startPageServer({ root, routes })
}
