import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { tracingRequested } from '../../src/telemetry/tracing.ts'
import { until } from '../support/until.ts'
import { attribute, type OtlpReceiver } from '../telemetry/otlp-receiver.ts'
import { startTracedHarness, type TracedHarness } from '../telemetry/traced-harness.ts'
import { type Harness, postRun, runIdOf } from './support.ts'

// A run's trace, exported over OTLP/HTTP as JSON (the standard OTEL_* variables) to a local receiver:
// run → step → model call (GenAI attributes) and action spans, inside the caller's trace.

let traced: TracedHarness
let receiver: OtlpReceiver
let harness: Harness

beforeAll(async () => {
  traced = await startTracedHarness({ OTEL_SERVICE_NAME: 'sextant-under-test' })
  ;({ receiver, harness } = traced)
})

afterAll(() => traced?.close())

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

    const run = await until(() => receiver.spans.find((span) => span.name === 'sextant.run'), {
      what: 'the run span',
    })
    await until(() => receiver.spans.some((span) => span.name.startsWith('execute_tool')), {
      what: 'the action span',
    })
    expect(run.traceId).toBe(traceId)
    expect(run.parentSpanId).toBe(callerSpan)
    expect(attribute(run, 'sextant.run_id')).toBe(runId)
    expect(attribute(run, 'sextant.reason')).toBe('model_stop')
    const step = receiver.spans.find((span) => span.name === 'sextant.step 1')
    expect(step?.parentSpanId).toBe(run.spanId)
    const chat = receiver.spans.find((span) => span.name.startsWith('chat '))
    expect(chat?.parentSpanId).toBe(step?.spanId)
    expect(attribute(chat, 'gen_ai.operation.name')).toBe('chat')
    expect(attribute(chat, 'gen_ai.request.model')).toBe('fake/agent-model')
    expect(attribute(chat, 'gen_ai.usage.input_tokens')).toEqual(expect.any(Number))
    const action = receiver.spans.find((span) => span.name === 'execute_tool done')
    expect(action?.parentSpanId).toBe(step?.spanId)
    expect(attribute(action, 'sextant.outcome')).toBe('ok')
    expect(new Set(receiver.spans.map((span) => span.traceId))).toEqual(new Set([traceId]))
    expect(receiver.services).toContain('sextant-under-test')
  })

  test("the body's traceparent wins over the header; a malformed header is passed over, a malformed field refused", async () => {
    const spanOf = async (response: Response) => {
      expect(response.status).toBe(200)
      const runId = runIdOf(response)
      await response.text()
      return until(
        () =>
          receiver.spans.find(
            (span) => span.name === 'sextant.run' && attribute(span, 'sextant.run_id') === runId,
          ),
        { what: `the span of run ${runId}` },
      )
    }
    const header = '00-cbf92f3577b34da6a3ce929d0e0e473e-80f067aa0ba902bf-01'
    const field = '00-dbf92f3577b34da6a3ce929d0e0e473f-90f067aa0ba902c0-01'
    const both = await spanOf(
      await postRun(harness.url, { task: 'Finish at once.', traceparent: field }, { traceparent: header }),
    )
    expect(both.traceId).toBe('dbf92f3577b34da6a3ce929d0e0e473f')
    expect(both.parentSpanId).toBe('90f067aa0ba902c0')

    const malformed = await spanOf(
      await postRun(harness.url, { task: 'Finish at once.' }, { traceparent: 'not-a-trace' }),
    )
    expect(malformed.parentSpanId ?? '').toBe('')

    const refused = await postRun(harness.url, { task: 'Finish at once.', traceparent: 'not-a-trace' })
    expect(refused.status).toBe(400)
    expect(await refused.text()).toMatch(/traceparent.*W3C traceparent/)
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
