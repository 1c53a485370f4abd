import { Hono } from 'hono'
import { describeRoute } from 'hono-openapi'
import type { AgentEvent } from '../../events/events.ts'
import { sleep } from '../../tool.ts'
import { isSafeRunId } from '../../util/run-files.ts'
import type { StepFileKind, StepFileStore } from '../../util/step-files.ts'
import { ApiError, runNotFound } from '../http/api-errors.ts'
import type { AppEnv } from '../http/app-env.ts'
import { errorResponse, pathParameter } from '../http/route-docs.ts'
import type { LiveRun } from '../runs/live-run.ts'
import type { LiveRunLookup } from './live-run-lookup.ts'

/** How often a step file not yet written is looked for. */
const fileCheckMs = 100

export interface StepFileOptions extends LiveRunLookup {
  /** Where runs keep their step files (a folder, or the shared store); undefined when this server keeps none (SEXTANT_SCREENSHOTS off). */
  files: StepFileStore | undefined
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
      const { data } = await readStep(c.req.param('id'), c.req.param('step'), 'screenshot', c)
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
      const { data } = await readStep(c.req.param('id'), c.req.param('step'), 'page-view', c)
      return c.body(new Uint8Array(data), 200, {
        'Content-Type': 'text/plain; charset=utf-8',
        'Cache-Control': 'private, max-age=3600',
        'X-Content-Type-Options': 'nosniff',
      })
    },
  )
  return routes

  async function readStep(
    id: string,
    stepText: string,
    kind: StepFileKind,
    c: { set(key: 'runId', value: string): void; req: { raw: Request } },
  ): Promise<{ data: Uint8Array }> {
    if (!isSafeRunId(id) || !(await options.runExists(id))) throw runNotFound(id)
    c.set('runId', id)
    const step = Number(stepText)
    if (!/^[1-9][0-9]{0,5}$/.test(stepText)) {
      throw new ApiError(400, 'invalid_request', `The step must be a number from 1, got "${stepText}".`)
    }
    const files = options.files
    if (files === undefined) {
      throw new ApiError(404, 'not_found', 'This server keeps no step files (SEXTANT_SCREENSHOTS is off).')
    }
    const read = () => files.get(id, step, kind)
    const data = (await read()) ?? (await untilWritten(read, options.liveRun(id), step, c.req.raw.signal))
    const name = kind === 'screenshot' ? 'screenshot' : 'page view'
    if (data === undefined)
      throw new ApiError(404, 'not_found', `Run "${id}" has no ${name} of step ${step}.`)
    return { data }
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
  read: () => Promise<Uint8Array | undefined>,
  run: LiveRun | undefined,
  step: number,
  signal: AbortSignal,
): Promise<Uint8Array | undefined> {
  if (!run) return undefined
  const movedOn = (event: AgentEvent) =>
    event.parentRunId === undefined &&
    (event.type === 'done' || (event.type === 'step_started' && event.step > step))
  const past = run.eventsSoFar()
  if (past.some(movedOn)) return read()
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
      const data = await read()
      if (data !== undefined) return data
      if (await Promise.race([moved, tick()])) return read()
    }
    return undefined
  } finally {
    stop.abort()
  }
}
