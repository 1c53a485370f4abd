import { Hono } from 'hono'
import { describeRoute } from 'hono-openapi'
import { type AgentEvent, isLiveOnly } from '../../events/events.ts'
import { withDeadline } from '../../util/deadline.ts'
import { ApiError } from '../http/api-errors.ts'
import type { AppEnv } from '../http/app-env.ts'
import { errorResponse } from '../http/route-docs.ts'
import { sseResponse } from '../http/sse.ts'
import type { LiveRun } from '../runs/live-run.ts'
import { hasRelayProof, relayHeader } from './relay.ts'

// Both ends of the one stream between the servers of a fleet: the owner's route, and the follower's reader.

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

/** How long the owner gets to answer before this follower goes on with the store alone (it asks again later). */
const ownerAnswerMs = 5_000

/**
 * The live-only events (model text as it streams) of a run another server
 * runs, read from that server's own stream (GET /internal/runs/:id/text,
 * with the fleet's relay secret): no store keeps them, so no NOTIFY carries them.
 */
export async function* readOwnerText(
  ownerUrl: string,
  runId: string,
  secret: string,
  signal: AbortSignal,
): AsyncGenerator<AgentEvent, void, undefined> {
  // The headers within ownerAnswerMs; the body for as long as the follower stays.
  const headers = new AbortController()
  const timer = setTimeout(() => headers.abort(), ownerAnswerMs)
  const response = await fetch(new URL(ownerTextPath(runId), ownerUrl), {
    headers: { [relayHeader]: secret, accept: 'text/event-stream' },
    signal: AbortSignal.any([signal, headers.signal]),
  }).finally(() => clearTimeout(timer))
  if (!response.ok || !response.body) {
    await response.body?.cancel()
    return
  }
  let text = ''
  for await (const chunk of response.body.pipeThrough(new TextDecoderStream())) {
    text += chunk
    const frames = text.split('\n\n')
    text = frames.pop() ?? ''
    for (const frame of frames) {
      const data = frame.split('\n').find((line) => line.startsWith('data: '))
      if (data) yield JSON.parse(data.slice('data: '.length)) as AgentEvent
    }
  }
}

/**
 * What one follower heard of the owner's live-only events, put between the
 * stored events where the owner had them: a delta carries the seq of the
 * stored event before it, so it is sent right after that event and before the
 * next; one that arrives after the next was sent is dropped (the `reflection`
 * the follower has already holds its text). Stored seq stays gapless, and the
 * store is read as before, woken by its NOTIFY, never by a delta.
 */
export class OwnerText {
  readonly #open: (signal: AbortSignal) => AsyncIterable<AgentEvent>
  readonly #signal: AbortSignal
  #buffer: AgentEvent[] = []
  #arrived = Promise.withResolvers<void>()
  #reading = false

  constructor(open: (signal: AbortSignal) => AsyncIterable<AgentEvent>, signal: AbortSignal) {
    this.#open = open
    this.#signal = signal
  }

  /** Reads the owner's stream unless reading already (it ends with the run there, or when the owner is gone). */
  read(): void {
    if (this.#reading || this.#signal.aborted) return
    this.#reading = true
    void (async () => {
      for await (const event of this.#open(this.#signal)) {
        this.#buffer.push(event)
        const arrived = this.#arrived
        this.#arrived = Promise.withResolvers<void>()
        arrived.resolve()
      }
    })()
      // An owner that does not answer leaves the follower with the store's events, as without it.
      .catch(() => {})
      .finally(() => {
        this.#reading = false
      })
  }

  /** The deltas that follow the stored event `last`; those of earlier events are dropped. */
  take(last: number): AgentEvent[] {
    const ready = this.#buffer.filter((event) => event.seq === last)
    this.#buffer = this.#buffer.filter((event) => event.seq > last)
    return ready
  }

  /** Deltas after `last` as they arrive, until `woken` (the store has more), `ms` pass or the follower leaves. */
  async *until(woken: Promise<void>, last: number, ms: number): AsyncGenerator<AgentEvent, void, undefined> {
    const over = withDeadline(woken, ms, this.#signal).then(
      () => true,
      () => true,
    )
    for (;;) {
      yield* this.take(last)
      const arrived = this.#arrived.promise.then(() => false)
      if (await Promise.race([over, arrived])) return
    }
  }
}
