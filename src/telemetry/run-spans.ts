import {
  type Attributes,
  type Context,
  context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  type Tracer,
  trace,
} from '@opentelemetry/api'
import type { AgentEvent } from '../events/events.ts'
import { traceparentParts } from './traceparent.ts'

/**
 * One run's trace, built from its events as they are streamed (the events
 * already say everything a trace needs): a run span, a span per step, a span
 * per model call with the GenAI semantic conventions' attributes, a span per
 * action (tool, ref, outcome; never its input's text), and state changes and
 * warnings as events on the run span. Sub-agents' runs nest under the step
 * of their parent that dispatched them. Only `@opentelemetry/api` is imported
 * here: the SDK is loaded by tracing.ts, and only when tracing is on.
 */
export class RunSpans {
  readonly #tracer: Tracer
  readonly #parent: Context
  readonly #runs = new Map<string, RunTrace>()

  /** `parent`: the context the run's span starts under (contextOf a traceparent, or the caller's active one). */
  constructor(tracer: Tracer, parent: Context = ROOT_CONTEXT) {
    this.#tracer = tracer
    this.#parent = parent
  }

  observe(event: AgentEvent): void {
    let run = this.#runs.get(event.runId)
    if (event.type === 'run_started' && !run) {
      const parentRun = event.parentRunId === undefined ? undefined : this.#runs.get(event.parentRunId)
      const parent = parentRun ? trace.setSpan(ROOT_CONTEXT, parentRun.current) : this.#parent
      const span = this.#tracer.startSpan(
        'sextant.run',
        {
          kind: SpanKind.INTERNAL,
          startTime: time(event.at),
          attributes: {
            'sextant.run_id': event.runId,
            'gen_ai.request.model': event.model,
            'sextant.max_turns': event.maxTurns,
            ...(event.parentRunId === undefined ? {} : { 'sextant.parent_run_id': event.parentRunId }),
          },
        },
        parent,
      )
      run = new RunTrace(this.#tracer, span, event.model)
      this.#runs.set(event.runId, run)
      return
    }
    if (!run) return
    run.observe(event)
    if (event.type === 'done') this.#runs.delete(event.runId)
  }

  /** Ends the spans of runs whose events stopped before their `done` (the consumer stopped reading, or a throw). */
  abandon(at: number): void {
    for (const run of this.#runs.values()) run.abandon(at)
    this.#runs.clear()
  }
}

/** The spans of one run while it goes on. */
class RunTrace {
  readonly #tracer: Tracer
  readonly #run: Span
  readonly #model: string
  #step: Span | undefined
  #modelCall: Span | undefined
  readonly #actions = new Map<string, Span>()

  constructor(tracer: Tracer, run: Span, model: string) {
    this.#tracer = tracer
    this.#run = run
    this.#model = model
  }

  /** The innermost span a sub-agent's run nests under. */
  get current(): Span {
    return this.#step ?? this.#run
  }

  observe(event: AgentEvent): void {
    const at = time(event.at)
    switch (event.type) {
      case 'step_started':
        this.#endStep(at)
        this.#step = this.#child(`sextant.step ${event.step}`, at, this.#run, { 'sextant.step': event.step })
        this.#modelCall = this.#child(`chat ${this.#model}`, at, this.#step, {
          'gen_ai.operation.name': 'chat',
          'gen_ai.request.model': this.#model,
        })
        return
      case 'usage': {
        const span =
          this.#modelCall ??
          this.#child(`chat ${this.#model}`, at, this.#step ?? this.#run, {
            'gen_ai.operation.name': 'chat',
            'gen_ai.request.model': this.#model,
          })
        span.setAttributes({
          'gen_ai.usage.input_tokens': event.usage.inputTokens,
          'gen_ai.usage.output_tokens': event.usage.outputTokens,
          ...(event.usage.cachedInputTokens === undefined
            ? {}
            : { 'gen_ai.usage.cache_read.input_tokens': event.usage.cachedInputTokens }),
          ...(event.costUsd == null ? {} : { 'sextant.cost_usd': event.costUsd }),
          'sextant.usage_source': event.source,
        })
        span.end(at)
        this.#modelCall = undefined
        return
      }
      case 'tool_call_start': {
        const ref = refOf(event.input)
        this.#actions.set(
          event.callId,
          this.#child(`execute_tool ${event.tool}`, at, this.#step ?? this.#run, {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': event.tool,
            'gen_ai.tool.call.id': event.callId,
            ...(ref === undefined ? {} : { 'sextant.ref': ref }),
          }),
        )
        return
      }
      case 'tool_call_result': {
        const span = this.#actions.get(event.callId)
        if (!span) return
        span.setAttribute('sextant.outcome', event.ok ? 'ok' : 'failed')
        if (!event.ok) span.setStatus({ code: SpanStatusCode.ERROR })
        span.end(at)
        this.#actions.delete(event.callId)
        return
      }
      case 'done':
        this.#endStep(at)
        this.#run.setAttributes({
          'sextant.reason': event.reason,
          'sextant.success': event.result.success,
          'sextant.steps': event.steps,
          'gen_ai.usage.input_tokens': event.usage.inputTokens,
          'gen_ai.usage.output_tokens': event.usage.outputTokens,
          ...(event.costUsd == null ? {} : { 'sextant.cost_usd': event.costUsd }),
        })
        if (event.reason === 'error') this.#run.setStatus({ code: SpanStatusCode.ERROR })
        this.#run.end(at)
        return
      case 'warning':
        this.#run.addEvent('sextant.warning', { 'sextant.code': event.code }, at)
        return
      case 'text_delta':
      case 'observation':
      case 'reflection':
        return
      default:
        // What the run went through (a confirmation, a takeover, a compaction, stuck detection): named, never its text.
        this.#run.addEvent(`sextant.${event.type}`, {}, at)
    }
  }

  abandon(at: number): void {
    this.#endStep(at)
    this.#run.setStatus({ code: SpanStatusCode.ERROR, message: 'the run ended without its done event' })
    this.#run.end(at)
  }

  #child(name: string, at: number, parent: Span, attributes: Attributes): Span {
    return this.#tracer.startSpan(
      name,
      { startTime: at, attributes },
      trace.setSpan(context.active(), parent),
    )
  }

  #endStep(at: number): void {
    this.#modelCall?.end(at)
    this.#modelCall = undefined
    for (const span of this.#actions.values()) span.end(at)
    this.#actions.clear()
    this.#step?.end(at)
    this.#step = undefined
  }
}

function time(at: string): number {
  return Date.parse(at)
}

function refOf(input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined
  const ref = (input as { ref?: unknown }).ref
  return typeof ref === 'string' ? ref : undefined
}

/**
 * A W3C traceparent as the parent of a run's trace; a malformed or absent one
 * leaves `fallback` (a new trace by default) as the parent.
 */
export function contextOf(traceparent: string | undefined, fallback: Context = ROOT_CONTEXT): Context {
  const parts = traceparentParts(traceparent)
  if (!parts) return fallback
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId: parts.traceId,
    spanId: parts.spanId,
    traceFlags: parts.flags & TraceFlags.SAMPLED,
    isRemote: true,
  })
}
