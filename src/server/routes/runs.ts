import { Hono } from 'hono'
import { describeRoute } from 'hono-openapi'
import { recordingOf } from '../../recording/from-events.ts'
import { RecordingSchema } from '../../recording/schema.ts'
import type { StoredRun } from '../../store/run-store.ts'
import { traceparentOf } from '../../telemetry/traceparent.ts'
import { ApiError, runNotFound } from '../http/api-errors.ts'
import type { AppEnv } from '../http/app-env.ts'
import { describeIssues, readJsonBody } from '../http/request-body.ts'
import {
  bodyErrors,
  errorResponse,
  jsonBody,
  jsonContent,
  runEventStream,
  runNotFoundResponse,
} from '../http/route-docs.ts'
import { ListQuerySchema, RunDetailSchema, RunPageSchema, RunRequestSchema } from '../http/schemas.ts'
import { sseResponse } from '../http/sse.ts'
import type { RunManager } from '../runs/run-manager.ts'

export interface RunRoutesOptions {
  manager: RunManager
  maxBodyBytes: number
  heartbeatMs?: number
}

/** A run request may carry a whole recording to replay. */
export const runRequestMaxBytes = 2 * 1024 * 1024

/** /v1/runs: start, list, show, follow and abort runs. */
export function runRoutes({ manager, maxBodyBytes, heartbeatMs }: RunRoutesOptions): Hono<AppEnv> {
  const routes = new Hono<AppEnv>()
  const sse = heartbeatMs === undefined ? {} : { heartbeatMs }
  const runBodyBytes = Math.max(maxBodyBytes, runRequestMaxBytes)
  const theRun = { '200': { description: 'The run', content: jsonContent(RunDetailSchema) } }

  routes.post(
    '/',
    describeRoute({
      summary: 'Start a run and stream its events',
      parameters: [
        {
          name: 'traceparent',
          in: 'header',
          schema: { type: 'string' },
          description:
            "W3C Trace Context: the run's OpenTelemetry trace joins the caller's (the body's `traceparent` wins; a malformed header is passed over).",
        },
      ],
      requestBody: jsonBody(RunRequestSchema),
      responses: {
        '200': {
          ...runEventStream,
          headers: {
            Location: { description: '/v1/runs/<id>', schema: { type: 'string' } },
            'X-Run-Id': { description: 'The run’s id', schema: { type: 'string' } },
          },
        },
        ...bodyErrors(runBodyBytes),
        '409': errorResponse(
          'The run names a profile, and profiles on a shared PostgreSQL store need SEXTANT_PROFILE_KEY (profile_key_required).',
        ),
        '429': {
          ...errorResponse(
            'As many runs are live as SEXTANT_MAX_RUNS allows (too_many_runs), or the queue holds SEXTANT_QUEUE_MAX runs (queue_full).',
          ),
          headers: { 'Retry-After': { schema: { type: 'integer' } } },
        },
        '503': errorResponse('The server is shutting down.'),
      },
    }),
    async (c) => {
      const body = await readJsonBody(c, RunRequestSchema, runBodyBytes)
      // The header joins the request, so a queued run keeps it in the queue with the rest (the body's field wins).
      const traceparent = traceparentOf(body.traceparent, c.req.header('traceparent'))
      const id = await manager.start(traceparent === undefined ? body : { ...body, traceparent })
      c.set('runId', id)
      // Whichever server runs it (SEXTANT_QUEUE), this stream follows it.
      return sseResponse((signal) => manager.follow(id, -1, signal), {
        ...sse,
        headers: { Location: `/v1/runs/${id}`, 'X-Run-Id': id },
      })
    },
  )

  routes.get(
    '/',
    describeRoute({
      summary: 'Recent runs, newest first',
      parameters: [
        { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
        {
          name: 'cursor',
          in: 'query',
          schema: { type: 'string' },
          description: 'nextCursor of the previous page',
        },
      ],
      responses: {
        '200': { description: 'A page of runs', content: jsonContent(RunPageSchema) },
        '400': errorResponse('The limit or the cursor is not valid.'),
      },
    }),
    async (c) => {
      const query = ListQuerySchema.safeParse(c.req.query())
      if (!query.success) {
        throw new ApiError(400, 'invalid_request', `Invalid query: ${describeIssues(query.error)}`)
      }
      const page = await manager.store.listRuns(withoutUndefined(query.data))
      // Live runs are fresher in memory than in the store (steps so far).
      const runs: StoredRun[] = page.runs.map((run) => manager.get(run.id)?.snapshot() ?? run)
      return c.json({ runs, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) })
    },
  )

  routes.get(
    '/:id',
    describeRoute({
      summary: 'A run: status, result, usage, and the runs of its sub-agents',
      responses: { ...theRun, '404': runNotFoundResponse },
    }),
    async (c) => {
      const id = c.req.param('id')
      c.set('runId', id)
      const view = await manager.view(id)
      if (!view) throw runNotFound(id)
      const webhookAttempts = await manager.store.webhooks.attempts(id)
      return c.json({
        ...view,
        children: await manager.store.childRuns(id),
        ...(webhookAttempts.length > 0 ? { webhookAttempts } : {}),
      })
    },
  )

  routes.get(
    '/:id/recording',
    describeRoute({
      summary:
        'The run’s recording (docs/recording.md): replay it with POST /v1/runs {"replay": …}, or export it',
      responses: {
        '200': { description: 'The recording', content: jsonContent(RecordingSchema) },
        '404': runNotFoundResponse,
      },
    }),
    async (c) => {
      const id = c.req.param('id')
      c.set('runId', id)
      const events = await manager.events(id)
      if (!events) throw runNotFound(id)
      return c.json(recordingOf(events))
    },
  )

  routes.get(
    '/:id/events',
    describeRoute({
      summary: 'Replay a run’s events, then follow it live until done',
      parameters: [
        {
          name: 'Last-Event-ID',
          in: 'header',
          schema: { type: 'integer' },
          description: 'Replay only events after this seq.',
        },
        { name: 'after', in: 'query', schema: { type: 'integer' }, description: 'Same as Last-Event-ID.' },
      ],
      responses: {
        '200': runEventStream,
        '400': errorResponse('Last-Event-ID (or after) is not an event seq.'),
        '404': runNotFoundResponse,
      },
    }),
    async (c) => {
      const id = c.req.param('id')
      c.set('runId', id)
      const afterSeq = parseAfter(c.req.header('last-event-id') ?? c.req.query('after'))
      if (!manager.get(id) && !(await manager.store.getRun(id))) throw runNotFound(id)
      // From memory when the run is live here; else from the store, following it on another server.
      return sseResponse((signal) => manager.follow(id, afterSeq, signal), sse)
    },
  )

  routes.delete(
    '/:id',
    describeRoute({
      summary:
        'Abort a run (reason user_abort) and answer its final state; a finished run is answered unchanged',
      responses: { ...theRun, '404': runNotFoundResponse },
    }),
    async (c) => {
      const id = c.req.param('id')
      c.set('runId', id)
      const view = await manager.abort(id)
      if (!view) throw runNotFound(id)
      return c.json({ ...view, children: await manager.store.childRuns(id) })
    },
  )

  return routes
}

/** Last-Event-ID (or ?after=) is the seq of the last event the client has; absent means from the start. */
export function parseAfter(value: string | undefined): number {
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
