import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { Harness } from '../server/support.ts'
import { until } from '../support/until.ts'
import { attribute, type OtlpReceiver } from '../telemetry/otlp-receiver.ts'
import { startTracedHarness, type TracedHarness } from '../telemetry/traced-harness.ts'
import { connectClient } from './support.ts'

// browser_task over MCP's streamable HTTP joins the caller's trace: from the call's params._meta.traceparent
// (the MCP trace-context proposal, SEP-414), else from the HTTP request's traceparent header; _meta wins.

let traced: TracedHarness
let receiver: OtlpReceiver
let harness: Harness

beforeAll(async () => {
  traced = await startTracedHarness()
  ;({ receiver, harness } = traced)
})

afterAll(() => traced?.close())

const headerTrace = { traceId: '6bf92f3577b34da6a3ce929d0e0e4738', spanId: '20f067aa0ba902b9' }
const metaTrace = { traceId: '7bf92f3577b34da6a3ce929d0e0e4739', spanId: '30f067aa0ba902ba' }
const traceparent = ({ traceId, spanId }: typeof headerTrace) => `00-${traceId}-${spanId}-01`

/** Calls browser_task over HTTP (with the header when given), and answers the exported span of its run. */
async function tracedCall(header: string | undefined, meta: string | undefined) {
  const transport = new StreamableHTTPClientTransport(new URL(`${harness.url}/mcp`), {
    requestInit: { headers: header === undefined ? {} : { traceparent: header } },
  })
  const client = await connectClient(transport)
  const result = await client.callTool({
    name: 'browser_task',
    arguments: { task: 'Finish at once.', maxTurns: 2 },
    ...(meta === undefined ? {} : { _meta: { traceparent: meta } }),
  })
  await client.close()
  const { runId } = result.structuredContent as { runId: string }
  return until(
    () =>
      receiver.spans.find(
        (span) => span.name === 'sextant.run' && attribute(span, 'sextant.run_id') === runId,
      ),
    { what: `the span of run ${runId}` },
  )
}

describe('MCP calls join the caller’s trace', () => {
  test("params._meta.traceparent parents the run's trace", async () => {
    const run = await tracedCall(undefined, traceparent(metaTrace))
    expect(run.traceId).toBe(metaTrace.traceId)
    expect(run.parentSpanId).toBe(metaTrace.spanId)
  })

  test("over HTTP the call's traceparent header does, when _meta says nothing", async () => {
    const run = await tracedCall(traceparent(headerTrace), undefined)
    expect(run.traceId).toBe(headerTrace.traceId)
    expect(run.parentSpanId).toBe(headerTrace.spanId)
  })

  test('_meta wins over the header', async () => {
    const run = await tracedCall(traceparent(headerTrace), traceparent(metaTrace))
    expect(run.traceId).toBe(metaTrace.traceId)
    expect(run.parentSpanId).toBe(metaTrace.spanId)
  })

  test('without either, a run is a trace of its own', async () => {
    const run = await tracedCall(undefined, undefined)
    expect([headerTrace.traceId, metaTrace.traceId]).not.toContain(run.traceId)
    expect(run.parentSpanId ?? '').toBe('')
  })
})
