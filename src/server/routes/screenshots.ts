import { readFile } from 'node:fs/promises'
import { Hono } from 'hono'
import { describeRoute } from 'hono-openapi'
import { isSafeRunId, stepPageViewFile, stepScreenshotFile } from '../../util/run-files.ts'
import { ApiError, runNotFound } from '../http/api-errors.ts'
import type { AppEnv } from '../http/app-env.ts'
import { errorResponse, pathParameter } from '../http/route-docs.ts'
import type { RunManager } from '../runs/run-manager.ts'

/**
 * A step's files, from the run's folder, behind the API's auth:
 * GET /v1/runs/:id/steps/:n/screenshot (its JPEG) and …/page-view (the page view the model read).
 */
export function screenshotRoutes(manager: RunManager): Hono<AppEnv> {
  const routes = new Hono<AppEnv>()
  const stepFile = (summary: string, description: string, type: string, schema: { format?: string }) =>
    describeRoute({
      summary,
      parameters: [pathParameter('step', { type: 'integer', minimum: 1 })],
      responses: {
        '200': { description, content: { [type]: { schema: { type: 'string', ...schema } } } },
        '400': errorResponse('The step is not a number from 1.'),
        '404': errorResponse('No such run, no such file of that step, or this server keeps no step files.'),
      },
    })

  routes.get(
    '/:id/steps/:step/screenshot',
    stepFile('A step’s screenshot: a JPEG of the viewport, secrets blanked', 'The JPEG', 'image/jpeg', {
      format: 'binary',
    }),
    async (c) => {
      const { runsDir, id, step } = await stepOf(c.req.param('id'), c.req.param('step'))
      c.set('runId', id)
      const data = await readStepFile(
        stepScreenshotFile(runsDir, id, step),
        `Run "${id}" has no screenshot of step ${step}.`,
      )
      return c.body(new Uint8Array(data), 200, {
        'Content-Type': 'image/jpeg',
        // A step's picture is private to whoever may read the run, and fixed once its step has moved on.
        'Cache-Control': 'private, max-age=3600',
        'X-Content-Type-Options': 'nosniff',
      })
    },
  )
  routes.get(
    '/:id/steps/:step/page-view',
    stepFile(
      'The page view the model read at a step, kept with its screenshot',
      'The page view',
      'text/plain',
      {},
    ),
    async (c) => {
      const { runsDir, id, step } = await stepOf(c.req.param('id'), c.req.param('step'))
      c.set('runId', id)
      const text = await readStepFile(
        stepPageViewFile(runsDir, id, step),
        `Run "${id}" has no page view of step ${step}.`,
      )
      return c.body(new Uint8Array(text), 200, {
        'Content-Type': 'text/plain; charset=utf-8',
        'Cache-Control': 'private, max-age=3600',
        'X-Content-Type-Options': 'nosniff',
      })
    },
  )
  return routes

  async function stepOf(
    id: string,
    stepText: string,
  ): Promise<{ runsDir: string; id: string; step: number }> {
    if (!isSafeRunId(id) || !(await manager.view(id))) throw runNotFound(id)
    const step = Number(stepText)
    if (!/^[1-9][0-9]{0,5}$/.test(stepText)) {
      throw new ApiError(400, 'invalid_request', `The step must be a number from 1, got "${stepText}".`)
    }
    const runsDir = manager.runsDir
    if (runsDir === undefined) {
      throw new ApiError(404, 'not_found', 'This server keeps no step files (SEXTANT_SCREENSHOTS is off).')
    }
    return { runsDir, id, step }
  }
}

async function readStepFile(file: string, missing: string): Promise<Buffer> {
  try {
    return await readFile(file)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    throw new ApiError(404, 'not_found', missing)
  }
}
