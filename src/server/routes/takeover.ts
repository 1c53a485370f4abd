import { Hono } from 'hono'
import { describeRoute } from 'hono-openapi'
import { PersonInputError, PersonInputSchema } from '../../browser/session/live/person-input.ts'
import { isAbortError } from '../../tool.ts'
import { ApiError } from '../http/api-errors.ts'
import type { AppEnv } from '../http/app-env.ts'
import { readJsonBody } from '../http/request-body.ts'
import { bodyErrors, errorResponse, jsonBody, jsonContent, runNotFoundResponse } from '../http/route-docs.ts'
import { InputReceiptSchema, TakeoverStateSchema } from '../http/schemas.ts'
import type { LiveRun } from '../runs/live-run.ts'
import { findLiveRun, type LiveRunLookup } from './live-run-lookup.ts'

export interface TakeoverRouteOptions extends LiveRunLookup {
  maxBodyBytes: number
}

/**
 * /v1/runs/:id/takeover and /v1/runs/:id/input: a person takes a live run's
 * browser, drives its page, and hands it back. Written against LiveRun alone,
 * so any server holding live runs (the API's, the CLI's local one) can mount them.
 */
export function takeoverRoutes(options: TakeoverRouteOptions): Hono<AppEnv> {
  const { maxBodyBytes } = options
  const routes = new Hono<AppEnv>()
  const theState = {
    '200': { description: 'Where the takeover stands', content: jsonContent(TakeoverStateSchema) },
  }

  /** The live run, or why it cannot be taken over: unknown (404), ended, elsewhere or opted out (409). */
  function liveRun(id: string): Promise<LiveRun> {
    return findLiveRun(options, id, (message) => new ApiError(409, 'takeover_unavailable', message))
  }

  routes.post(
    '/:id/takeover',
    describeRoute({
      summary:
        'Take over the run’s browser: the run stops at its next step boundary (takeover_started) until hand-back',
      responses: {
        ...theState,
        '404': runNotFoundResponse,
        '409': errorResponse(
          'The run has ended, is not live on this server, or was started with "handover": false.',
        ),
      },
    }),
    async (c) => {
      const id = c.req.param('id')
      c.set('runId', id)
      const run = await liveRun(id)
      if (!run.handover)
        throw new ApiError(409, 'takeover_unavailable', `Run ${id} was started with "handover": false.`)
      // Idempotent: asking again while asked for, or while taken over, changes nothing.
      run.handover.takeOver()
      return c.json(stateOf(run))
    },
  )

  routes.delete(
    '/:id/takeover',
    describeRoute({
      summary: 'Hand the browser back: the run observes the page afresh and goes on (takeover_ended)',
      responses: {
        ...theState,
        '404': runNotFoundResponse,
        '409': errorResponse(
          'Nobody has taken the run over nor asked to (not_taken_over), or the run has ended.',
        ),
      },
    }),
    async (c) => {
      const id = c.req.param('id')
      c.set('runId', id)
      const run = await liveRun(id)
      if (!run.handover?.handBack())
        throw new ApiError(
          409,
          'not_taken_over',
          `Run ${id} is not taken over; there is nothing to hand back.`,
        )
      return c.json({ ...stateOf(run), requested: false })
    },
  )

  routes.post(
    '/:id/input',
    describeRoute({
      summary:
        'While taken over: a click, pointer move, wheel, text or key on the active page (viewport CSS pixels; Playwright key names)',
      requestBody: jsonBody(PersonInputSchema),
      responses: {
        '200': { description: 'Applied to the page', content: jsonContent(InputReceiptSchema) },
        ...bodyErrors(maxBodyBytes),
        '400': errorResponse(
          'The input is malformed, its point is outside the viewport, or its key is unknown.',
        ),
        '404': runNotFoundResponse,
        '409': errorResponse('The run is not taken over (not_taken_over), or has ended.'),
      },
    }),
    async (c) => {
      const id = c.req.param('id')
      c.set('runId', id)
      const run = await liveRun(id)
      const input = await readJsonBody(c, PersonInputSchema, maxBodyBytes)
      const takeover = run.browser?.takeover
      if (!run.isTakenOver || !takeover)
        throw new ApiError(409, 'not_taken_over', `Run ${id} is not taken over: take it over first.`)
      try {
        await takeover.input(input, run.signal)
      } catch (error) {
        if (error instanceof PersonInputError) throw new ApiError(400, 'invalid_request', error.message)
        if (isAbortError(error) || run.signal.aborted)
          throw new ApiError(409, 'takeover_unavailable', `Run ${id} has ended.`)
        throw error
      }
      return c.json({ runId: id, type: input.type })
    },
  )

  return routes
}

function stateOf(run: LiveRun) {
  return { runId: run.info.id, takenOver: run.isTakenOver, requested: run.handover?.requested ?? false }
}
