import { access, readFile } from 'node:fs/promises'
import { Hono } from 'hono'
import { describeRoute } from 'hono-openapi'
import type { AgentEvent } from '../../events/events.ts'
import { sleep } from '../../tool.ts'
import { isSafeRunId, stepPageViewFile, stepScreenshotFile } from '../../util/run-files.ts'
import { ApiError, runNotFound } from '../http/api-errors.ts'
import type { AppEnv } from '../http/app-env.ts'
import { errorResponse, pathParameter } from '../http/route-docs.ts'
import type { LiveRun } from '../runs/live-run.ts'
import type { LiveRunLookup } from './live-run-lookup.ts'

/** How often a step file not yet written is looked for. */
const fileCheckMs = 100

export interface StepFileOptions extends LiveRunLookup {
  /** Where runs keep their step files; undefined when this server keeps none (SEXTANT_SCREENSHOTS off). */
  runsDir: string | undefined
}

/**
 * A step's files, from the run's folder, behind the API's auth:
 * GET /v1/runs/:id/steps/:n/screenshot (its JPEG) and …/page-view (the page view the model read).
 * Mounted by a server of runs and by `sextant run`'s one-run viewer alike.
 */
export function screenshotRoutes(options: StepFileOptions): Hono<AppEnv> {
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
      const file = stepScreenshotFile(runsDir, id, step)
      await untilWritten(file, options.liveRun(id), step, c.req.raw.signal)
      const data = await readStepFile(file, `Run "${id}" has no screenshot of step ${step}.`)
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
      const file = stepPageViewFile(runsDir, id, step)
      await untilWritten(file, options.liveRun(id), step, c.req.raw.signal)
      const text = await readStepFile(file, `Run "${id}" has no page view of step ${step}.`)
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
    if (!isSafeRunId(id) || !(await options.runExists(id))) throw runNotFound(id)
    const step = Number(stepText)
    if (!/^[1-9][0-9]{0,5}$/.test(stepText)) {
      throw new ApiError(400, 'invalid_request', `The step must be a number from 1, got "${stepText}".`)
    }
    const runsDir = options.runsDir
    if (runsDir === undefined) {
      throw new ApiError(404, 'not_found', 'This server keeps no step files (SEXTANT_SCREENSHOTS is off).')
    }
    return { runsDir, id, step }
  }
}

/**
 * A live run writes a step's files while its model thinks, after the step's
 * observation named them: a viewer that asks at once is answered as soon as
 * the file is there, or once the run has moved on from that step without it
 * (then 404), or when it goes away. The file is looked for every
 * `fileCheckMs` as well as at each event: a run waiting for a person (or a
 * confirmation) sends no event for as long as it waits, and its file may land
 * just after the last one.
 */
async function untilWritten(
  file: string,
  run: LiveRun | undefined,
  step: number,
  signal: AbortSignal,
): Promise<void> {
  if (!run || (await exists(file))) return
  const movedOn = (event: AgentEvent) =>
    event.parentRunId === undefined &&
    (event.type === 'done' || (event.type === 'step_started' && event.step > step))
  const past = run.eventsSoFar()
  if (past.some(movedOn)) return
  const stop = new AbortController()
  const following = AbortSignal.any([signal, stop.signal])
  // True once the run moved on (or its events ended); a tick of the file check is false.
  const moved = (async () => {
    for await (const event of run.follow(past.at(-1)?.seq ?? -1, following)) if (movedOn(event)) break
    return true
  })().catch(() => true)
  const tick = () =>
    sleep(fileCheckMs, signal).then(
      () => false,
      () => false,
    )
  try {
    // A viewer that went away ends the wait quietly: nobody is left to answer.
    while (!signal.aborted) {
      if ((await exists(file)) || (await Promise.race([moved, tick()]))) return
    }
  } finally {
    stop.abort()
  }
}

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  )
}

async function readStepFile(file: string, missing: string): Promise<Buffer> {
  try {
    return await readFile(file)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    throw new ApiError(404, 'not_found', missing)
  }
}
