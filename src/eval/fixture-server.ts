import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { extname, join, normalize, sep } from 'node:path'

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
}

export interface FixtureServer {
  /** http://127.0.0.1:<port>, without a trailing slash: what `{{fixtures}}` becomes. */
  url: string
  close(): Promise<void>
}

/**
 * Serves a suite's fixture folder on 127.0.0.1 and an ephemeral port, for
 * `sextant eval --serve-fixtures`: static files only, nothing outside the
 * folder, `index.html` for a folder.
 */
export async function serveFixtures(root: string): Promise<FixtureServer> {
  const base = normalize(root)
  const server = createServer(async (request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://fixtures').pathname)
    let file = normalize(join(base, path))
    if (file !== base && !file.startsWith(base + sep)) {
      response.writeHead(403).end()
      return
    }
    try {
      if ((await stat(file)).isDirectory()) file = join(file, 'index.html')
      await stat(file)
    } catch {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found')
      return
    }
    response.writeHead(200, { 'content-type': contentTypes[extname(file)] ?? 'application/octet-stream' })
    createReadStream(file)
      .on('error', () => response.destroy())
      .pipe(response)
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', resolve)
  })
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
