import type { Tracer } from '@opentelemetry/api'
import type { Sampler } from '@opentelemetry/sdk-trace'

/** Traces of runs, when the standard OTEL_* variables turn them on. */
export interface Tracing {
  tracer: Tracer
  /** Exports what is left; called as the server closes. */
  shutdown(): Promise<void>
}

/**
 * Whether the OTEL_* variables ask for traces: an OTLP endpoint, or
 * OTEL_TRACES_EXPORTER=otlp. OTEL_SDK_DISABLED and OTEL_TRACES_EXPORTER=none win.
 */
export function tracingRequested(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false
  const exporter = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase()
  if (exporter === 'none') return false
  return Boolean(
    env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || exporter === 'otlp',
  )
}

/**
 * Starts the OpenTelemetry SDK with an OTLP/HTTP exporter, configured by the
 * standard variables (endpoint, headers, OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES,
 * the sampler, the batch's delays). Off, it loads nothing: the SDK is imported
 * here, on demand, so a server without OTEL_* pays nothing for it.
 */
export async function startTracing(env: NodeJS.ProcessEnv = process.env): Promise<Tracing | undefined> {
  if (!tracingRequested(env)) return undefined
  const [sdk, { OTLPTraceExporter }, resources] = await Promise.all([
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
  ])
  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME?.trim() || 'sextant' }))
    .merge(resources.detectResources({ detectors: [resources.envDetector] }))
  const delay = Number(env.OTEL_BSP_SCHEDULE_DELAY)
  const processor = new sdk.BatchSpanProcessor({
    exporter: new OTLPTraceExporter(),
    ...(Number.isFinite(delay) && delay > 0 ? { scheduledDelayMillis: delay } : {}),
  })
  const provider = new sdk.TracerProvider({
    resource,
    spanProcessors: [processor],
    sampler: samplerOf(env, sdk),
  })
  return { tracer: provider.getTracer('sextant'), shutdown: () => provider.shutdown() }
}

type SdkTrace = typeof import('@opentelemetry/sdk-trace')

/** OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG, as the specification names them (default parentbased_always_on). */
function samplerOf(env: NodeJS.ProcessEnv, sdk: SdkTrace): Sampler {
  const name = env.OTEL_TRACES_SAMPLER?.trim().toLowerCase() || 'parentbased_always_on'
  const ratio = Number(env.OTEL_TRACES_SAMPLER_ARG ?? '1')
  const byRatio = new sdk.TraceIdRatioBasedSampler(
    Number.isFinite(ratio) ? Math.min(1, Math.max(0, ratio)) : 1,
  )
  const root = name.endsWith('always_off')
    ? new sdk.AlwaysOffSampler()
    : name.endsWith('traceidratio')
      ? byRatio
      : new sdk.AlwaysOnSampler()
  return name.startsWith('parentbased_') ? new sdk.ParentBasedSampler({ root }) : root
}
