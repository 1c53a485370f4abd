import { Hono } from 'hono'
import { describeRoute } from 'hono-openapi'
import type { DownloadStore } from '../../util/run-downloads.ts'
import { isDownloadName } from '../../util/run-downloads.ts'
import { isSafeRunId } from '../../util/run-files.ts'
import { ApiError, runNotFound } from '../http/api-errors.ts'
import type { AppEnv } from '../http/app-env.ts'
import { errorResponse, jsonContent, pathParameter, runNotFoundResponse } from '../http/route-docs.ts'
import { DownloadListSchema } from '../http/schemas.ts'

export interface DownloadRouteOptions {
  /** Whether a run with this id exists anywhere. */
  runExists(id: string): Promise<boolean>
  /** Where runs keep their downloads (their folder, or the shared store); undefined when this server keeps none. */
  downloads: DownloadStore | undefined
}

/**
 * What a run's browser downloaded, behind the API's auth:
 * GET /v1/runs/:id/downloads (the list) and …/downloads/:name (the file).
 * On a shared store any server answers, after the server that ran the run is
 * gone. A file came from a web page: it is served as an attachment of no
 * type the browser would render, never as a page of this origin.
 */
export function downloadRoutes(options: DownloadRouteOptions): Hono<AppEnv> {
  const routes = new Hono<AppEnv>()

  routes.get(
    '/:id/downloads',
    describeRoute({
      summary: 'What the run’s browser downloaded',
      responses: {
        '200': { description: 'The downloads, oldest first', content: jsonContent(DownloadListSchema) },
        '404': runNotFoundResponse,
      },
    }),
    async (c) => {
      const { id, store } = await found(c.req.param('id'), c)
      const downloads = store ? await store.list(id) : []
      return c.json({
        runId: id,
        downloads: downloads.map((entry) => ({ ...entry, url: downloadUrl(id, entry.name) })),
      })
    },
  )

  routes.get(
    '/:id/downloads/:name',
    describeRoute({
      summary: 'A file the run’s browser downloaded',
      parameters: [pathParameter('name', { type: 'string' })],
      responses: {
        '200': {
          description: 'The file, as an attachment',
          content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
        },
        '404': errorResponse('No such run, or the run downloaded no file of that name.'),
      },
    }),
    async (c) => {
      const { id, store } = await found(c.req.param('id'), c)
      const name = c.req.param('name')
      const data = store && isDownloadName(name) ? await store.get(id, name) : undefined
      if (data === undefined)
        throw new ApiError(404, 'not_found', `Run "${id}" downloaded no file named ${JSON.stringify(name)}.`)
      return c.body(new Uint8Array(data), 200, {
        'Content-Type': 'application/octet-stream',
        'Content-Disposition': `attachment; filename="${asciiName(name)}"; filename*=UTF-8''${encodeURIComponent(name)}`,
        'X-Content-Type-Options': 'nosniff',
        'Content-Security-Policy': 'sandbox',
        'Cache-Control': 'private, no-store',
      })
    },
  )
  return routes

  async function found(id: string, c: { set(key: 'runId', value: string): void }) {
    if (!isSafeRunId(id) || !(await options.runExists(id))) throw runNotFound(id)
    c.set('runId', id)
    return { id, store: options.downloads }
  }
}

/** The URL under which the API serves a run's download. */
export function downloadUrl(runId: string, name: string): string {
  return `/v1/runs/${encodeURIComponent(runId)}/downloads/${encodeURIComponent(name)}`
}

/** The name for clients that read only `filename`: quotes and anything past ASCII replaced. */
function asciiName(name: string): string {
  return name.replace(/[^\x20-\x7e]|["\\]/g, '_')
}
