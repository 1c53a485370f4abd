import { context, type Tracer, trace } from '@opentelemetry/api'
import type { AgentEvent } from '../events/events.ts'
import { contextOf, RunSpans } from './run-spans.ts'

/** What says how a run is traced: the run's own options (RunOptions' fields of the same names). */
export interface TraceRequest {
  traceparent?: string
  tracer?: Tracer
}

/**
 * A run's events, each seen by the run's trace on its way to the consumer.
 * The parent is the request's traceparent, else the context active when this
 * is called (the caller's span, when its process registered a context
 * manager); the tracer is the request's, else the global one, a no-op until
 * the embedding process registers a provider: free when tracing is off.
 * Sub-agents' events pass through here too and nest under their parent's step.
 */
export function tracedRun<R>(
  request: TraceRequest,
  events: AsyncGenerator<AgentEvent, R, undefined>,
): AsyncGenerator<AgentEvent, R, undefined> {
  const parent = contextOf(request.traceparent, context.active())
  const spans = new RunSpans(request.tracer ?? trace.getTracer('sextant'), parent)
  return observed(events, spans)
}

async function* observed<R>(
  events: AsyncGenerator<AgentEvent, R, undefined>,
  spans: RunSpans,
): AsyncGenerator<AgentEvent, R, undefined> {
  let finished = false
  try {
    for (;;) {
      const next = await events.next()
      if (next.done) {
        finished = true
        return next.value
      }
      spans.observe(next.value)
      yield next.value
    }
  } finally {
    spans.abandon(Date.now())
    // The consumer stopped early (return() or a throw at the yield): the run closes what it opened.
    // The value handed to return() is never read (the summary is the run's own): any will do.
    if (!finished) await events.return(undefined as never)
  }
}
