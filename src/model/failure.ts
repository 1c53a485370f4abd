import { APICallError } from 'ai'
import { isAbortError } from '../tool.ts'
import { describeError } from '../util/describe-error.ts'

/** What a failed model call means for the caller: try again (maybe after a given time), or stop. */
export type ModelFailure =
  | { retryable: true; message: string; retryAfterMs?: number }
  | { retryable: false; message: string; aborted?: boolean }

/** Error codes of a connection that failed before or while the provider answered. */
const networkErrorCodes = [
  'ECONNRESET',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
]

/**
 * Decides whether a failed model call is worth another attempt, and after how
 * long the provider asked to wait: network errors, 408, 409, 429 and 5xx are
 * retryable; auth, context length, content filter, other 4xx and aborts are
 * not. The provider's HTTP details (status codes, Retry-After headers, error
 * bodies) stay here so the agent only sees this answer.
 */
export function classifyModelFailure(error: unknown): ModelFailure {
  if (isAbortError(error)) return { retryable: false, message: 'aborted', aborted: true }
  const message = describeError(error)
  if (APICallError.isInstance(error)) {
    const status = error.statusCode
    const body = `${error.responseBody ?? ''} ${error.message}`.toLowerCase()
    if (/context[_ ]length|maximum context|too many tokens|content[_ ]filter|content_policy/.test(body)) {
      return { retryable: false, message }
    }
    if (status === undefined) return { retryable: true, message }
    if (status === 408 || status === 409 || status === 429 || status >= 500) {
      const retryAfterMs = parseRetryAfter(error.responseHeaders)
      return retryAfterMs === undefined
        ? { retryable: true, message }
        : { retryable: true, message, retryAfterMs }
    }
    return { retryable: false, message }
  }
  if (isNetworkError(error)) return { retryable: true, message }
  return { retryable: false, message }
}

/** `retry-after-ms` (OpenAI), else `Retry-After` in seconds or as an HTTP date. */
function parseRetryAfter(headers: Record<string, string> | undefined): number | undefined {
  if (!headers) return undefined
  const msHeader = headers['retry-after-ms']
  if (msHeader !== undefined && Number.isFinite(Number(msHeader))) return Number(msHeader)
  const value = headers['retry-after']
  if (value === undefined) return undefined
  const seconds = Number(value)
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now())
}

/** fetch wraps the socket's error in a TypeError: look a few causes deep. */
function isNetworkError(error: unknown): boolean {
  let current: unknown = error
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code
    if (typeof code === 'string' && networkErrorCodes.includes(code)) return true
    if (current instanceof TypeError && /fetch failed|network/i.test(current.message)) return true
    current = current.cause
  }
  return false
}
