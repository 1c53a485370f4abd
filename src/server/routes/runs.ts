import { Hono } from 'hono'
import { recordingOf } from '../../recording/from-events.ts'
import type { StoredRun } from '../../store/run-store.ts'
import { ApiError, runNotFound } from '../api-errors.ts'
import type { AppEnv } from '../app-env.ts'
import { describeIssues, readJsonBody } from '../request-body.ts'
import type { RunManager } from '../run-manager.ts'
import { ListQuerySchema, RunRequestSchema } from '../schemas.ts'
import { sseResponse } from '../sse.ts'

export interface RunRoutesOptions {
  manager: RunManager
  maxBodyBytes: number
  heartbeatMs?: number
}

/** /v1/runs: start, list, show, follow and abort runs. */
/** A run request may carry a whole recording to replay. */
export const runRequestMaxBytes = 2 * 1024 * 1024

export function runRoutes({ manager, maxBodyBytes, heartbeatMs }: RunRoutesOptions): Hono<AppEnv> {
  const routes = new Hono<AppEnv>()
  const sse = heartbeatMs === undefined ? {} : { heartbeatMs }

  routes.post('/', async (c) => {
    const request = await readJsonBody(c, RunRequestSchema, Math.max(maxBodyBytes, runRequestMaxBytes))
    const id = await manager.start(request)
    c.set('runId', id)
    // Whichever server runs it (SEXTANT_QUEUE), this stream follows it.
    return sseResponse((signal) => manager.follow(id, -1, signal), {
      ...sse,
      headers: { Location: `/v1/runs/${id}`, 'X-Run-Id': id },
    })
  })

  routes.get('/', async (c) => {
    const query = ListQuerySchema.safeParse(c.req.query())
    if (!query.success) {
      throw new ApiError(400, 'invalid_request', `Invalid query: ${describeIssues(query.error)}`)
    }
    const page = await manager.store.listRuns(withoutUndefined(query.data))
    // Live runs are fresher in memory than in the store (steps so far).
    const runs: StoredRun[] = page.runs.map((run) => manager.get(run.id)?.snapshot() ?? run)
    return c.json({ runs, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) })
  })

  routes.get('/:id', async (c) => {
    const id = c.req.param('id')
    c.set('runId', id)
    const view = await manager.view(id)
    if (!view) throw runNotFound(id)
    return c.json({ ...view, children: await manager.store.childRuns(id) })
  })

  routes.get('/:id/recording', async (c) => {
    const id = c.req.param('id')
    c.set('runId', id)
    const events = await manager.events(id)
    if (!events) throw runNotFound(id)
    return c.json(recordingOf(events))
  })

  routes.get('/:id/events', async (c) => {
    const id = c.req.param('id')
    c.set('runId', id)
    const afterSeq = parseAfter(c.req.header('last-event-id') ?? c.req.query('after'))
    if (!manager.get(id) && !(await manager.store.getRun(id))) throw runNotFound(id)
    // From memory when the run is live here; else from the store, following it on another server.
    return sseResponse((signal) => manager.follow(id, afterSeq, signal), sse)
  })

  routes.delete('/:id', async (c) => {
    const id = c.req.param('id')
    c.set('runId', id)
    const view = await manager.abort(id)
    if (!view) throw runNotFound(id)
    return c.json({ ...view, children: await manager.store.childRuns(id) })
  })

  return routes
}

/** Last-Event-ID (or ?after=) is the seq of the last event the client has; absent means from the start. */
function parseAfter(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return -1
  // Decimal digits only: Number() would also take "0x10", "1e3", " 7 " or "-0" for a seq.
  const seq = /^(?:-1|\d{1,15})$/.test(value) ? Number(value) : Number.NaN
  if (!Number.isInteger(seq) || seq < -1) {
    throw new ApiError(
      400,
      'invalid_request',
      `Last-Event-ID (or ?after) must be an event seq (a decimal integer), got "${value.slice(0, 40)}".`,
    )
  }
  return seq
}

function withoutUndefined<T extends object>(value: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]: Exclude<T[K], undefined>
  }
}
