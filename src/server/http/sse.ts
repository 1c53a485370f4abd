import { type AgentEvent, isLiveOnly } from '../../events/events.ts'

/** Comment lines keep idle connections open through proxies and tell clients the server is alive. */
export const defaultHeartbeatMs = 15_000

const encoder = new TextEncoder()

/**
 * Where a queued run stands, sent while it waits (SEXTANT_QUEUE). Not one of
 * the run's events: it has no seq, is not stored, and Last-Event-ID ignores it.
 */
export interface QueuePositionEvent {
  type: 'queue_position'
  runId: string
  /** 1: the next run a server with a free slot claims. */
  position: number
  at: string
}

/** What a run's stream carries: its events, and its queue position while it waits. */
export type StreamEvent = AgentEvent | QueuePositionEvent

/**
 * One event as an SSE frame: `id:` the seq, `event:` the type, `data:` the
 * event's JSON on one line. A queue position and a live-only event (text as
 * it streams) have no id, so a reconnecting client's Last-Event-ID stays the
 * last stored run event it saw.
 */
export function sseFrame(event: StreamEvent): string {
  const id = event.type === 'queue_position' || isLiveOnly(event) ? '' : `id: ${event.seq}\n`
  return `${id}event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`
}

export interface SseOptions<T = StreamEvent> {
  heartbeatMs?: number
  headers?: Record<string, string>
  /** How one item is framed (default: sseFrame, for run events). */
  frame?: (item: T, index: number) => string
}

/**
 * A text/event-stream response of `events`, pulled one at a time so a slow
 * client holds back only its own stream. When the client goes away, the
 * signal given to `open` aborts and the heartbeat stops; the run goes on.
 */
export function sseResponse<T = StreamEvent>(
  open: (signal: AbortSignal) => AsyncIterable<T> | Iterable<T>,
  options: SseOptions<T> = {},
): Response {
  // Without `frame`, the items are run events (T's default).
  const frame = options.frame ?? ((item: T) => sseFrame(item as StreamEvent))
  let sent = 0
  const gone = new AbortController()
  let heartbeat: NodeJS.Timeout | undefined
  let iterator: AsyncIterator<T> | Iterator<T> | undefined
  const stop = () => {
    clearInterval(heartbeat)
    heartbeat = undefined
    gone.abort()
  }

  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      // Tells EventSource clients how soon to reconnect after a dropped connection.
      controller.enqueue(encoder.encode('retry: 2000\n\n'))
      heartbeat = setInterval(() => {
        try {
          controller.enqueue(encoder.encode(': ping\n\n'))
        } catch {
          stop()
        }
      }, options.heartbeatMs ?? defaultHeartbeatMs)
      const source = open(gone.signal)
      iterator = Symbol.asyncIterator in source ? source[Symbol.asyncIterator]() : source[Symbol.iterator]()
    },
    async pull(controller) {
      try {
        // biome-ignore lint/style/noNonNullAssertion: start() sets it, and a stream calls pull() only once start() has returned.
        const next = await iterator!.next()
        if (next.done) {
          stop()
          controller.close()
          return
        }
        controller.enqueue(encoder.encode(frame(next.value, sent++)))
      } catch (error) {
        stop()
        controller.error(error)
      }
    },
    cancel() {
      stop()
      void iterator?.return?.()
    },
  })

  return new Response(body, {
    status: 200,
    headers: {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      // Stops nginx and similar proxies from buffering the stream.
      'X-Accel-Buffering': 'no',
      ...options.headers,
    },
  })
}
