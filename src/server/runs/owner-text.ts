import type { AgentEvent } from '../../events/events.ts'
import { withDeadline } from '../../util/deadline.ts'
import { ownerTextPath } from '../routes/owner-text.ts'
import { relayHeader } from '../routes/relay.ts'

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
