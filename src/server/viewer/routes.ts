import { gzipSync } from 'node:zlib'
import { type Context, Hono, type MiddlewareHandler } from 'hono'
import { describeRoute } from 'hono-openapi'
import type { AppEnv } from '../http/app-env.ts'
import { open } from '../http/route-docs.ts'
import { viewerAssetVersion, viewerCss, viewerJs } from './assets.ts'
import { type ViewerPage, viewerDocument } from './pages.ts'

/**
 * Everything the viewer loads comes from this server (the machine may be
 * offline, and a CDN would see who watches which run): no inline script or
 * style, no other origin, no framing. blob: images are the screenshots,
 * fetched with the bearer header.
 */
export const viewerCsp = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' blob:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

const securityHeaders: MiddlewareHandler = async (c, next) => {
  await next()
  c.header('Content-Security-Policy', viewerCsp)
  c.header('X-Content-Type-Options', 'nosniff')
  c.header('Referrer-Policy', 'no-referrer')
  c.header('X-Frame-Options', 'DENY')
}

export interface ViewerOptions {
  /** The API needs a bearer token: the pages ask for it before reading anything. */
  authRequired: boolean
}

/** The run viewer: `/` (runs and the new-run form), `/runs/:id` (one run, live), and its two assets. */
export function viewerRoutes(options: ViewerOptions): Hono<AppEnv> {
  const routes = new Hono<AppEnv>()
  routes.use(securityHeaders)
  const page = (view: ViewerPage) => viewerDocument(view, options.authRequired, viewerAssetVersion)

  // Open to all: the pages hold no data; they ask for the token before they read the API.
  const describe = (summary: string, type: string, status = '200') =>
    describeRoute({
      summary,
      ...open,
      responses: { [status]: { description: summary, ...(type ? { content: { [type]: {} } } : {}) } },
    })

  routes.get('/', describe('The run viewer: runs, newest first, and the new-run form', 'text/html'), (c) => {
    c.header('Cache-Control', 'no-cache')
    return c.html(page({ kind: 'runs' }))
  })
  routes.get('/runs/:id', describe('The run viewer’s page of one run, live', 'text/html'), (c) => {
    c.header('Cache-Control', 'no-cache')
    return c.html(page({ kind: 'run', runId: c.req.param('id') }))
  })
  // The version in the asset URLs changes with their content, so they can be cached for good.
  const immutable = 'public, max-age=31536000, immutable'
  const asset = (text: string, type: string) => {
    const plain = new TextEncoder().encode(text)
    const gzipped = new Uint8Array(gzipSync(plain))
    return (c: Context<AppEnv>) => {
      const gzip = /\bgzip\b/.test(c.req.header('accept-encoding') ?? '')
      return c.body(gzip ? gzipped : plain, 200, {
        'Content-Type': type,
        'Cache-Control': immutable,
        Vary: 'Accept-Encoding',
        ...(gzip ? { 'Content-Encoding': 'gzip' } : {}),
      })
    }
  }
  routes.get(
    '/viewer/viewer.js',
    describe('The viewer’s script', 'text/javascript'),
    asset(viewerJs, 'text/javascript; charset=utf-8'),
  )
  routes.get(
    '/viewer/viewer.css',
    describe('The viewer’s stylesheet', 'text/css'),
    asset(viewerCss, 'text/css; charset=utf-8'),
  )
  // Browsers ask for it on every page; an empty answer keeps their consoles (and the logs) free of 404s.
  routes.get('/favicon.ico', describe('Empty, so browsers do not log a 404', '', '204'), (c) =>
    c.body(null, 204, { 'Cache-Control': immutable }),
  )
  return routes
}
