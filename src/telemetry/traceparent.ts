/** W3C Trace Context's traceparent, version 00: the caller's trace id, its span's id, and its flags. */
const traceparentPattern = /^00-([\da-f]{32})-([\da-f]{16})-([\da-f]{2})$/

/** Its parts, when `value` is a well-formed traceparent (lowercase or not) with non-zero ids. */
export function traceparentParts(
  value: unknown,
): { traceId: string; spanId: string; flags: number } | undefined {
  if (typeof value !== 'string') return undefined
  const match = traceparentPattern.exec(value.trim().toLowerCase())
  const [, traceId = '', spanId = '', flags = '0'] = match ?? []
  if (!match || /^0+$/.test(traceId) || /^0+$/.test(spanId)) return undefined
  return { traceId, spanId, flags: Number.parseInt(flags, 16) }
}

export function isTraceparent(value: unknown): value is string {
  return traceparentParts(value) !== undefined
}

/**
 * The first well-formed traceparent of those a call carries, the most explicit
 * first (a request's own field, then MCP's `_meta`, then the HTTP header);
 * a malformed one is passed over, as the specification asks of a receiver.
 */
export function traceparentOf(...candidates: unknown[]): string | undefined {
  const found = candidates.find(isTraceparent)
  return found?.trim().toLowerCase()
}
