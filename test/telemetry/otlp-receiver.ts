import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

// A local OTLP/HTTP receiver (JSON, as OTEL_EXPORTER_OTLP_PROTOCOL=http/json sends): what an
// OpenTelemetry collector would see of the traces exported to it.

export interface OtlpAttribute {
  key: string
  value: { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number }
}

export interface OtlpSpan {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  attributes?: OtlpAttribute[]
  /** The service.name of the process that exported it (set here, not by OTLP). */
  service?: string
}

export interface OtlpReceiver {
  /** The base URL, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string
  /** Every span received so far. */
  spans: OtlpSpan[]
  /** The service.name of each batch received. */
  services: string[]
  /** The OTEL_* variables that send a process's traces here as JSON, batched every 50 ms. */
  env: Record<string, string>
  close(): Promise<void>
}

export interface OtlpReceiverOptions {
  /** Awaited after a batch is stored and before it is answered: a slow collector. */
  beforeAnswer?: () => Promise<void>
}

export async function startOtlpReceiver(options: OtlpReceiverOptions = {}): Promise<OtlpReceiver> {
  const spans: OtlpSpan[] = []
  const services: string[] = []
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', async () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans: { resource: { attributes: OtlpAttribute[] }; scopeSpans: { spans: OtlpSpan[] }[] }[]
      }
      for (const resource of body.resourceSpans) {
        const service = resource.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue
        services.push(service ?? '')
        for (const scope of resource.scopeSpans)
          spans.push(...scope.spans.map((span) => ({ ...span, service })))
      }
      await options.beforeAnswer?.()
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const url = `http://127.0.0.1:${port}`
  return {
    url,
    spans,
    services,
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '50',
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

/** A span's attribute as a plain value (OTLP's JSON writes integers as strings). */
export function attribute(span: OtlpSpan | undefined, key: string): unknown {
  const value = span?.attributes?.find((a) => a.key === key)?.value
  return (
    value?.stringValue ??
    (value?.intValue === undefined ? undefined : Number(value.intValue)) ??
    value?.boolValue ??
    value?.doubleValue
  )
}
