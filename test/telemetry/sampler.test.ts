import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { contextOf } from '../../src/telemetry/run-spans.ts'
import { startTracing } from '../../src/telemetry/tracing.ts'
import { type OtlpReceiver, startOtlpReceiver } from './otlp-receiver.ts'

// OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG decide which traces leave the process: judged by
// the spans that reach a local OTLP receiver, through the SDK startTracing configures, under a
// caller's traceparent whose sampled flag is set (-01) or not (-00), or none (a root span).

let receiver: OtlpReceiver
const saved = { ...process.env }

beforeAll(async () => {
  receiver = await startOtlpReceiver()
  // The exporter reads its endpoint and protocol from the process's environment.
  Object.assign(process.env, receiver.env)
})

afterAll(async () => {
  await receiver?.close()
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key]
})

const sampledParent = '00-abf92f3577b34da6a3ce929d0e0e473c-60f067aa0ba902bd-01'
const unsampledParent = '00-bbf92f3577b34da6a3ce929d0e0e473d-70f067aa0ba902be-00'

/** Which of a root span, a child of a sampled caller and a child of an unsampled one reach the receiver. */
async function exported(
  sampler: Record<string, string>,
): Promise<{ root: boolean; sampled: boolean; unsampled: boolean }> {
  const label = JSON.stringify(sampler)
  const tracing = await startTracing({ ...receiver.env, ...sampler })
  if (!tracing) throw new Error('tracing did not start')
  const cases = { root: undefined, sampled: sampledParent, unsampled: unsampledParent }
  for (const [name, traceparent] of Object.entries(cases))
    tracing.tracer.startSpan(`${label} ${name}`, {}, contextOf(traceparent)).end()
  // Shutting down exports what is left: whatever has not arrived by then was dropped by the sampler.
  await tracing.shutdown()
  const reached = (name: string) => receiver.spans.some((span) => span.name === `${label} ${name}`)
  return { root: reached('root'), sampled: reached('sampled'), unsampled: reached('unsampled') }
}

describe('the sampler (OTEL_TRACES_SAMPLER)', () => {
  test('by default (parentbased_always_on): new traces, and callers that sample', async () => {
    expect(await exported({})).toEqual({ root: true, sampled: true, unsampled: false })
  })

  test('always_off sends nothing, whatever the caller decided', async () => {
    expect(await exported({ OTEL_TRACES_SAMPLER: 'always_off' })).toEqual({
      root: false,
      sampled: false,
      unsampled: false,
    })
  })

  test('traceidratio 0 sends nothing and 1 everything, ignoring the caller', async () => {
    expect(await exported({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' })).toEqual({
      root: false,
      sampled: false,
      unsampled: false,
    })
    expect(await exported({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '1' })).toEqual({
      root: true,
      sampled: true,
      unsampled: true,
    })
  })

  test('parentbased_* follows the caller’s sampled flag, and its own rule for new traces', async () => {
    expect(await exported({ OTEL_TRACES_SAMPLER: 'parentbased_always_off' })).toEqual({
      root: false,
      sampled: true,
      unsampled: false,
    })
    expect(
      await exported({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' }),
    ).toEqual({ root: false, sampled: true, unsampled: false })
    expect(
      await exported({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '1' }),
    ).toEqual({ root: true, sampled: true, unsampled: false })
  })
})
