import { Hono } from 'hono'
import { describeRoute } from 'hono-openapi'
import type { LiveFrame } from '../../browser/browser-session.ts'
import { ApiError } from '../http/api-errors.ts'
import type { AppEnv } from '../http/app-env.ts'
import { errorResponse, runNotFoundResponse } from '../http/route-docs.ts'
import { sseResponse } from '../http/sse.ts'
import type { LiveRun } from '../runs/live-run.ts'
import { type LiveViewHooks, RunScreencast } from '../runs/run-screencast.ts'
import { findLiveRun, type LiveRunLookup } from './live-run-lookup.ts'

export interface LiveRoutesOptions extends LiveRunLookup {
  hooks?: LiveViewHooks
  heartbeatMs?: number
}

/** GET /v1/runs/:id/live: the run's browser as it is now, frame by frame, while someone watches. */
export function liveRoutes(options: LiveRoutesOptions): Hono<AppEnv> {
  const routes = new Hono<AppEnv>()
  // One screencast per run, shared by its watchers; forgotten with the run.
  const screencasts = new WeakMap<LiveRun, RunScreencast>()
  const screencastOf = (run: LiveRun) => {
    const known = screencasts.get(run)
    if (known) return known
    const made = new RunScreencast(run, options.hooks)
    screencasts.set(run, made)
    return made
  }

  routes.get(
    '/:id/live',
    describeRoute({
      summary: 'Live frames of the run’s browser (JPEG), while the run is live here',
      responses: {
        '200': {
          description:
            'Server-Sent Events: `event: frame`, `data: {"jpeg": "<base64>", "width": …, "height": …, "origin": "https://…"}` (width and height: the viewport in CSS pixels; origin: the shown tab’s origin as the browser reports its URL, never as its page says). Frames come while the page changes (from the moment the run’s browser opens); secret fields are painted over unless a person has taken the run over. A `: ping` comment every 15 s; the stream ends when the run lets its browser go.',
          content: {
            'text/event-stream': {
              schema: {
                type: 'object',
                properties: {
                  jpeg: { type: 'string', format: 'byte' },
                  width: { type: 'integer' },
                  height: { type: 'integer' },
                  origin: { type: 'string' },
                },
                required: ['jpeg', 'width', 'height', 'origin'],
              },
            },
          },
        },
        '404': runNotFoundResponse,
        '409': errorResponse(
          'The run is not live on this server (queued, finished, or run by another server), or its browser gives no frames (not_live).',
        ),
      },
    }),
    async (c) => {
      const id = c.req.param('id')
      c.set('runId', id)
      const run = await findLiveRun(options, id, notLive)
      // A live run without a browser (not open yet, or let go as it ends) gets a stream that waits for one.
      if (run.browser && !run.browser.live) throw notLive(`The browser of run ${id} gives no live frames.`)
      const screencast = screencastOf(run)
      return sseResponse((signal) => screencast.watch(signal), {
        ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
        frame: frameEvent,
      })
    },
  )
  return routes
}

function frameEvent(frame: LiveFrame): string {
  return `event: frame\ndata: ${JSON.stringify(frame)}\n\n`
}

function notLive(message: string): ApiError {
  return new ApiError(409, 'not_live', message)
}
