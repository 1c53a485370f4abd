/**
 * How long a provider asked us to wait before trying again, from wherever it
 * puts it: OpenAI's `retry-after-ms` header, the `Retry-After` header (OpenAI,
 * Anthropic: seconds, or an HTTP date), or Gemini's `google.rpc.RetryInfo` in
 * the error body (`error.details[].retryDelay`, e.g. `"34.4s"`), which comes
 * with no header at all.
 */
export function providerRetryDelayMs(
  headers: Record<string, string> | undefined,
  body: unknown,
  now = Date.now(),
): number | undefined {
  return fromHeaders(headers, now) ?? fromRetryInfo(body)
}

function fromHeaders(headers: Record<string, string> | undefined, now: number): number | undefined {
  if (!headers) return undefined
  const msHeader = headers['retry-after-ms']
  if (msHeader !== undefined && msHeader.trim() !== '' && Number.isFinite(Number(msHeader))) {
    return Math.max(0, Number(msHeader))
  }
  const value = headers['retry-after']
  if (value === undefined || value.trim() === '') return undefined
  const seconds = Number(value)
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

const retryInfoType = 'type.googleapis.com/google.rpc.RetryInfo'

/**
 * Gemini's RetryInfo, from a body given as the raw response text or already
 * parsed (a stream error's data): `{ error: { details: [...] } }` or the
 * error object itself.
 */
function fromRetryInfo(body: unknown): number | undefined {
  const parsed = typeof body === 'string' ? parseJson(body) : body
  const error = record(record(parsed)?.error) ?? record(parsed)
  const details = error?.details
  if (!Array.isArray(details)) return undefined
  for (const detail of details) {
    const entry = record(detail)
    if (entry?.['@type'] === retryInfoType) return parseDuration(entry.retryDelay)
  }
  return undefined
}

/** A protobuf Duration in its JSON form: decimal seconds with an `s` suffix ("34.4s", "1s", "0.5s"). */
function parseDuration(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined
  const match = /^(\d+(?:\.\d+)?)s$/.exec(value.trim())
  return match?.[1] === undefined ? undefined : Math.round(Number(match[1]) * 1000)
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined
}

/** The provider's name for a message ("Gemini asks to wait…"), from the AI SDK model's `provider` id. */
export function providerLabel(model: unknown): string {
  const id =
    typeof model === 'object' && model !== null ? (model as { provider?: unknown }).provider : undefined
  if (typeof id !== 'string') return 'The provider'
  if (id.startsWith('google')) return 'Gemini'
  if (id.startsWith('anthropic')) return 'Anthropic'
  if (id.startsWith('openai')) return 'OpenAI'
  if (id.startsWith('compatible')) return 'The model server'
  return `The provider (${id.split('.')[0]})`
}
