import { Hono } from 'hono'
import { describeRoute } from 'hono-openapi'
import { type ArtifactKind, artifactKindOf } from '../../browser/session/artifacts/artifact-settings.ts'
import type { ArtifactStore } from '../../util/run-downloads.ts'
import { isSafeRunId } from '../../util/run-files.ts'
import { ApiError, runNotFound } from '../http/api-errors.ts'
import type { AppEnv } from '../http/app-env.ts'
import { errorResponse, jsonContent, pathParameter, runNotFoundResponse } from '../http/route-docs.ts'
import { ArtifactListSchema } from '../http/schemas.ts'

export interface ArtifactRouteOptions {
  /** Whether a run with this id exists anywhere. */
  runExists(id: string): Promise<boolean>
  /** Where runs keep their artifacts (their folder, or the shared store); undefined when this server keeps none. */
  artifacts: ArtifactStore | undefined
}

const contentTypes: Record<ArtifactKind, string> = {
  trace: 'application/zip',
  video: 'video/webm',
  har: 'application/json',
}

/**
 * A run's artifacts, behind the API's auth: GET /v1/runs/:id/artifacts (the list) and …/artifacts/:name
 * (the file: trace.zip, video.webm, network.har). On a shared store any server answers, after the server
 * that ran the run is gone. They hold what pages sent: each is served as an attachment, never rendered
 * as a page of this origin.
 */
export function artifactRoutes(options: ArtifactRouteOptions): Hono<AppEnv> {
  const routes = new Hono<AppEnv>()

  routes.get(
    '/:id/artifacts',
    describeRoute({
      summary: 'The run’s trace, videos and HAR',
      responses: {
        '200': { description: 'The artifacts the run kept', content: jsonContent(ArtifactListSchema) },
        '404': runNotFoundResponse,
      },
    }),
    async (c) => {
      const id = await found(c.req.param('id'), c)
      const entries = options.artifacts ? await options.artifacts.list(id) : []
      const artifacts = entries.flatMap((entry) => {
        const kind = artifactKindOf(entry.name)
        return kind ? [{ ...entry, kind, url: artifactUrl(id, entry.name) }] : []
      })
      return c.json({ runId: id, artifacts })
    },
  )

  routes.get(
    '/:id/artifacts/:name',
    describeRoute({
      summary:
        'One of the run’s artifacts: its trace (zip, for npx playwright show-trace), a video (WebM) or its HAR',
      parameters: [pathParameter('name', { type: 'string' })],
      responses: {
        '200': {
          description: 'The file, as an attachment',
          content: Object.fromEntries(
            Object.values(contentTypes).map((type) => [
              type,
              { schema: { type: 'string', format: 'binary' } },
            ]),
          ),
        },
        '404': errorResponse('No such run, or the run kept no artifact of that name.'),
      },
    }),
    async (c) => {
      const id = await found(c.req.param('id'), c)
      const name = c.req.param('name')
      const kind = artifactKindOf(name)
      const data = kind && options.artifacts ? await options.artifacts.get(id, name) : undefined
      if (!kind || data === undefined)
        throw new ApiError(404, 'not_found', `Run "${id}" kept no artifact named ${JSON.stringify(name)}.`)
      return c.body(new Uint8Array(data), 200, {
        'Content-Type': contentTypes[kind],
        'Content-Disposition': `attachment; filename="${id}-${name}"`,
        'X-Content-Type-Options': 'nosniff',
        'Content-Security-Policy': 'sandbox',
        'Cache-Control': 'private, no-store',
      })
    },
  )
  return routes

  async function found(id: string, c: { set(key: 'runId', value: string): void }): Promise<string> {
    if (!isSafeRunId(id) || !(await options.runExists(id))) throw runNotFound(id)
    c.set('runId', id)
    return id
  }
}

/** The URL under which the API serves a run's artifact. */
export function artifactUrl(runId: string, name: string): string {
  return `/v1/runs/${encodeURIComponent(runId)}/artifacts/${encodeURIComponent(name)}`
}
