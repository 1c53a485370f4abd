import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { tracingRequested } from '../../src/telemetry/tracing.ts'
import { doneTurn, type FakeOpenAI, startFakeOpenAI } from '../support/models/fake-openai.ts'
import { until } from '../support/until.ts'
import { type Harness, postRun, runIdOf, startHarness } from './support.ts'

// A run's trace, exported over OTLP/HTTP as JSON (the standard OTEL_* variables) to a local receiver:
// run → step → model call (GenAI attributes) and action spans, inside the caller's trace.

interface OtlpAttribute {
  key: string
  value: { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number }
}
interface OtlpSpan {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  attributes?: OtlpAttribute[]
}

const spans: OtlpSpan[] = []
const services: string[] = []
let receiver: ReturnType<typeof createServer>
let fake: FakeOpenAI
let harness: Harness
const saved = { ...process.env }

beforeAll(async () => {
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans: { resource: { attributes: OtlpAttribute[] }; scopeSpans: { spans: OtlpSpan[] }[] }[]
      }
      for (const resource of body.resourceSpans) {
        const service = resource.resource.attributes.find((a) => a.key === 'service.name')
        services.push(service?.value.stringValue ?? '')
        for (const scope of resource.scopeSpans) spans.push(...scope.spans)
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  const { port } = receiver.address() as AddressInfo
  Object.assign(process.env, {
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_SERVICE_NAME: 'sextant-under-test',
    OTEL_BSP_SCHEDULE_DELAY: '50',
  })
  fake = await startFakeOpenAI({ fallback: () => doneTurn('All done.') })
  harness = await startHarness({ fake, browser: null })
})

afterAll(async () => {
  await harness?.close()
  await fake?.close()
  await new Promise((resolve) => receiver?.close(resolve))
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key]
})

function attribute(span: OtlpSpan | undefined, key: string): unknown {
  const value = span?.attributes?.find((a) => a.key === key)?.value
  return (
    value?.stringValue ??
    (value?.intValue === undefined ? undefined : Number(value.intValue)) ??
    value?.boolValue
  )
}

describe('OpenTelemetry traces', () => {
  test("a run is one trace inside the caller's: run, step, model call with gen_ai attributes, action", async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736'
    const callerSpan = '00f067aa0ba902b7'
    const response = await postRun(
      harness.url,
      { task: 'Finish at once.' },
      { traceparent: `00-${traceId}-${callerSpan}-01` },
    )
    expect(response.status).toBe(200)
    const runId = runIdOf(response)
    await response.text()

    const run = await until(() => spans.find((span) => span.name === 'sextant.run'), { what: 'the run span' })
    await until(() => spans.some((span) => span.name.startsWith('execute_tool')), { what: 'the action span' })
    expect(run.traceId).toBe(traceId)
    expect(run.parentSpanId).toBe(callerSpan)
    expect(attribute(run, 'sextant.run_id')).toBe(runId)
    expect(attribute(run, 'sextant.reason')).toBe('model_stop')
    const step = spans.find((span) => span.name === 'sextant.step 1')
    expect(step?.parentSpanId).toBe(run.spanId)
    const chat = spans.find((span) => span.name.startsWith('chat '))
    expect(chat?.parentSpanId).toBe(step?.spanId)
    expect(attribute(chat, 'gen_ai.operation.name')).toBe('chat')
    expect(attribute(chat, 'gen_ai.request.model')).toBe('fake/agent-model')
    expect(attribute(chat, 'gen_ai.usage.input_tokens')).toEqual(expect.any(Number))
    const action = spans.find((span) => span.name === 'execute_tool done')
    expect(action?.parentSpanId).toBe(step?.spanId)
    expect(attribute(action, 'sextant.outcome')).toBe('ok')
    expect(new Set(spans.map((span) => span.traceId))).toEqual(new Set([traceId]))
    expect(services).toContain('sextant-under-test')
  })

  test('off unless the OTEL_* variables ask for traces', () => {
    expect(tracingRequested({})).toBe(false)
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true)
    expect(
      tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' }),
    ).toBe(false)
    expect(
      tracingRequested({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }),
    ).toBe(false)
  })
})
