import { APICallError, StreamProviderError } from 'ai'
import { isAbortError } from '../tool.ts'
import { describeError } from '../util/describe-error.ts'
import { providerRetryDelayMs } from './retry-delay.ts'

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
 * not. An error event the provider sends after HTTP 200, once the stream has
 * begun (Anthropic's `overloaded_error`, the Responses API's `error` with
 * `server_is_overloaded`, Gemini's mid-stream error), is judged like its HTTP
 * twin: the AI SDK gives it the status code it stands for. The provider's HTTP
 * details (status codes, Retry-After headers, error bodies) stay here so the
 * agent only sees this answer.
 */
export function classifyModelFailure(error: unknown): ModelFailure {
  if (isAbortError(error)) return { retryable: false, message: 'aborted', aborted: true }
  const message = describeError(error)
  if (APICallError.isInstance(error)) {
    const body = `${error.responseBody ?? ''} ${error.message}`
    const delay = () => providerRetryDelayMs(error.responseHeaders, error.responseBody ?? error.data)
    return classifyStatus(error.statusCode, body, message, delay)
  }
  if (StreamProviderError.isInstance(error)) {
    const kind = [error.type, error.code].filter((part) => part !== undefined).join(' ')
    const described = kind ? `${message} (${kind}, after the response had begun)` : message
    const body = `${kind} ${JSON.stringify(error.data) ?? ''} ${error.message}`
    // No status code at all: the SDK's own judgement is all there is.
    if (error.statusCode === undefined) return { retryable: error.isRetryable, message: described }
    return classifyStatus(error.statusCode, body, described, () =>
      providerRetryDelayMs(undefined, error.data),
    )
  }
  if (isNetworkError(error)) return { retryable: true, message }
  return { retryable: false, message }
}

function classifyStatus(
  status: number | undefined,
  body: string,
  message: string,
  retryAfterMs: () => number | undefined,
): ModelFailure {
  if (
    /context[_ ]length|maximum context|too many tokens|content[_ ]filter|content_policy|insufficient_quota/i.test(
      body,
    )
  ) {
    return { retryable: false, message }
  }
  if (status === undefined) return { retryable: true, message }
  if (status === 408 || status === 409 || status === 429 || status >= 500) {
    const delayMs = retryAfterMs()
    return delayMs === undefined
      ? { retryable: true, message }
      : { retryable: true, message, retryAfterMs: delayMs }
  }
  return { retryable: false, message }
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
