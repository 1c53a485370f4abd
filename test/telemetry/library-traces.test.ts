import { context, ROOT_CONTEXT, trace } from '@opentelemetry/api'
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  StackContextManager,
  TracerProvider,
} from '@opentelemetry/sdk-trace'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { runAgent } from '../../src/agent/loop.ts'
import type { RunOptions } from '../../src/agent/run/run-options.ts'
import { type BrowserPool, createBrowserPool } from '../../src/browser/launch/launcher.ts'
import type { AgentEvent } from '../../src/events/events.ts'
import { agentOutput, refOf } from '../support/models/scripted-model.ts'
import { type PageServer, startPageServer } from '../support/page-server.ts'
import { dispatch, finish, routedModel, sawChildren } from '../support/sub-agents.ts'
import { sharedLaunch } from '../support/suite/shared-browser.ts'

// runAgent in a process that registered its own OpenTelemetry provider (as an embedding app does):
// the run is traced with the global tracer, inside the caller's active span, its sub-agent under the
// step that dispatched it; a `traceparent` option overrides the active context. Real Chromium on a
// local page; only the model is scripted.

const exporter = new InMemorySpanExporter()
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] })
let pool: BrowserPool
let site: PageServer

beforeAll(async () => {
  trace.setGlobalTracerProvider(provider)
  context.setGlobalContextManager(new StackContextManager().enable())
  site = await startPageServer({
    pages: { '/': '<!doctype html><title>Shop</title><h1>Shop</h1><button>Add to cart</button>' },
  })
  pool = createBrowserPool({}, sharedLaunch)
})

afterAll(async () => {
  await pool?.close()
  await site?.close()
  await provider.shutdown()
  trace.disable()
  context.disable()
})

beforeEach(() => exporter.reset())

const parentTask = 'Add the item to the cart, then have a helper check the cart.'
const childTask = 'Check the cart.'

/** Clicks the page's button, dispatches one helper, then ends; the helper ends at once. */
function shoppingModel() {
  let clicked = false
  return routedModel((task, prompt) => {
    if (task === childTask) return finish('The cart holds one item.')
    if (!clicked) {
      clicked = true
      return { output: agentOutput({ click: { ref: refOf(prompt, 'button', 'Add to cart') } }) }
    }
    return sawChildren(prompt) ? finish('Added, and checked.') : dispatch([{ task: childTask }])
  })
}

function options(extra: Partial<RunOptions> = {}): RunOptions {
  return {
    task: parentTask,
    startUrl: site.url,
    model: shoppingModel(),
    browser: pool.newSession,
    stuck: false,
    subAgents: { max: 1 },
    ...extra,
  }
}

async function drain(events: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const seen: AgentEvent[] = []
  for await (const event of events) seen.push(event)
  return seen
}

const spans = (): ReadableSpan[] => exporter.getFinishedSpans()
const named = (name: string) => spans().filter((span) => span.name === name)
const parentOf = (span: ReadableSpan | undefined) => span?.parentSpanContext?.spanId

describe('runAgent with a tracer provider registered by the embedding process', () => {
  test("is traced inside the caller's active span: run, steps, model calls, actions, and its sub-agent under the dispatching step", async () => {
    const tracer = trace.getTracer('embedding-app')
    const caller = tracer.startSpan('checkout job')
    // runAgent takes the context active when it is called.
    const events = context.with(trace.setSpan(ROOT_CONTEXT, caller), () => runAgent(options()))
    const seen = await drain(events)
    caller.end()
    expect(seen.at(-1)).toMatchObject({ type: 'done', reason: 'model_stop' })

    const { traceId, spanId: callerId } = caller.spanContext()
    const runs = named('sextant.run')
    expect(runs).toHaveLength(2)
    const parentRun = runs.find((span) => span.attributes['sextant.parent_run_id'] === undefined)
    const childRun = runs.find((span) => span.attributes['sextant.parent_run_id'] !== undefined)
    expect(parentOf(parentRun)).toBe(callerId)
    expect(spans().every((span) => span.spanContext().traceId === traceId)).toBe(true)

    // A span per step the run started, in order.
    const parentSteps = spans()
      .filter(
        (span) => span.name.startsWith('sextant.step') && parentOf(span) === parentRun?.spanContext().spanId,
      )
      .sort((a, b) => Number(a.attributes['sextant.step']) - Number(b.attributes['sextant.step']))
    const stepsStarted = seen.filter(
      (event) => event.type === 'step_started' && event.parentRunId === undefined,
    )
    expect(parentSteps.map((span) => span.attributes['sextant.step'])).toEqual(
      stepsStarted.map((event) => (event.type === 'step_started' ? event.step : 0)),
    )
    const [clickStep, dispatchStep] = parentSteps
    const click = named('execute_tool click')[0]
    expect(parentOf(click)).toBe(clickStep?.spanContext().spanId)
    expect(click?.attributes['sextant.outcome']).toBe('ok')
    expect(click?.attributes['sextant.ref']).toEqual(expect.any(String))
    const chat = spans().find(
      (span) => span.name.startsWith('chat ') && parentOf(span) === clickStep?.spanContext().spanId,
    )
    expect(chat?.attributes['gen_ai.operation.name']).toBe('chat')
    // The helper nests under the step of its parent that dispatched it.
    expect(parentOf(childRun)).toBe(dispatchStep?.spanContext().spanId)
    expect(named('execute_tool dispatch_agent')[0] && parentOf(named('execute_tool dispatch_agent')[0])).toBe(
      dispatchStep?.spanContext().spanId,
    )
  })

  test('a traceparent option is the parent, over the active context', async () => {
    const caller = trace.getTracer('embedding-app').startSpan('some other job')
    const traceparent = '00-8bf92f3577b34da6a3ce929d0e0e473a-40f067aa0ba902bb-01'
    const events = context.with(trace.setSpan(ROOT_CONTEXT, caller), () =>
      runAgent(options({ traceparent, subAgents: undefined, model: routedModel(() => finish('Done.')) })),
    )
    await drain(events)
    caller.end()
    const [run] = named('sextant.run')
    expect(run?.spanContext().traceId).toBe('8bf92f3577b34da6a3ce929d0e0e473a')
    expect(parentOf(run)).toBe('40f067aa0ba902bb')
  })
})
