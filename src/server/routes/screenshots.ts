import { readFile } from 'node:fs/promises'
import { Hono } from 'hono'
import { isSafeRunId, stepScreenshotFile } from '../../store/run-files.ts'
import type { AppEnv } from '../app-env.ts'
import { ApiError, runNotFound } from '../errors.ts'
import type { RunManager } from '../run-manager.ts'

/** GET /v1/runs/:id/steps/:n/screenshot: a step's JPEG, from the run's folder, behind the API's auth. */
export function screenshotRoutes(manager: RunManager): Hono<AppEnv> {
  const routes = new Hono<AppEnv>()
  routes.get('/:id/steps/:step/screenshot', async (c) => {
    const id = c.req.param('id')
    c.set('runId', id)
    if (!isSafeRunId(id) || !manager.view(id)) throw runNotFound(id)
    const stepText = c.req.param('step')
    const step = Number(stepText)
    if (!/^[1-9][0-9]{0,5}$/.test(stepText) || !Number.isSafeInteger(step)) {
      throw new ApiError(400, 'invalid_request', `The step must be a number from 1, got "${stepText}".`)
    }
    const runsDir = manager.runsDir
    if (runsDir === undefined) {
      throw new ApiError(404, 'not_found', 'This server keeps no screenshots (SEXTANT_SCREENSHOTS is off).')
    }
    let data: Buffer
    try {
      data = await readFile(stepScreenshotFile(runsDir, id, step))
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
      throw new ApiError(404, 'not_found', `Run "${id}" has no screenshot of step ${step}.`)
    }
    return c.body(new Uint8Array(data), 200, {
      'Content-Type': 'image/jpeg',
      // A step's picture is private to whoever may read the run, and fixed once its step has moved on.
      'Cache-Control': 'private, max-age=3600',
      'X-Content-Type-Options': 'nosniff',
    })
  })
  return routes
}
