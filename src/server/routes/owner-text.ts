import { Hono } from 'hono'
import { describeRoute } from 'hono-openapi'
import { isLiveOnly } from '../../events/events.ts'
import { ApiError } from '../http/api-errors.ts'
import type { AppEnv } from '../http/app-env.ts'
import { errorResponse } from '../http/route-docs.ts'
import { sseResponse } from '../http/sse.ts'
import type { LiveRun } from '../runs/live-run.ts'
import { hasRelayProof, relayHeader } from './relay.ts'

/** Where a server asks another for the live-only events of a run that one runs. */
export function ownerTextPath(runId: string): string {
  return `/internal/runs/${encodeURIComponent(runId)}/text`
}

export interface OwnerTextOptions {
  /** The fleet's relay secret; undefined: no other server may ask. */
  secret: string | undefined
  liveRun(id: string): LiveRun | undefined
}

/**
 * GET /internal/runs/:id/text: the live-only events of a run executing here
 * (the model's text as it streams, `text_delta`, which no store keeps), from
 * now until the run ends, for the servers whose clients follow it from the
 * store. Between servers only: it needs the fleet's relay secret (not the API
 * token), and is not part of the public API.
 */
export function ownerTextRoutes(options: OwnerTextOptions): Hono<AppEnv> {
  const routes = new Hono<AppEnv>()
  routes.get(
    '/runs/:id/text',
    describeRoute({
      summary: 'Between the servers of a fleet: a run’s model text as it streams',
      description: `Needs the fleet's relay secret in \`${relayHeader}\` (not the API token). Server-Sent Events of the run's \`text_delta\` events from now until it ends here; each carries the seq of the stored event before it.`,
      security: [],
      responses: {
        '200': {
          description: 'The text_delta events',
          content: { 'text/event-stream': { schema: { type: 'string' } } },
        },
        '403': errorResponse('No relay secret, or not the fleet’s.'),
        '404': errorResponse('The run is not live on this server.'),
      },
    }),
    (c) => {
      if (!hasRelayProof(c.req.header(relayHeader), options.secret))
        throw new ApiError(403, 'forbidden', 'Only another server of the fleet may ask (its relay secret).')
      const id = c.req.param('id')
      const run = options.liveRun(id)
      if (!run || run.isDone) throw new ApiError(404, 'not_found', `Run ${id} is not live on this server.`)
      c.set('runId', id)
      return sseResponse(async function* (signal) {
        for await (const event of run.followNew(signal)) if (isLiveOnly(event)) yield event
      })
    },
  )
  return routes
}
