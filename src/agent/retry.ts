import { APICallError } from 'ai'
import { isAbortError } from '../tool.ts'
import type { RetryOptions } from './loop-types.ts'

export const defaultRetry: RetryOptions = { maxRetries: 3, baseDelayMs: 500, maxDelayMs: 20_000 }

export type ModelFailure =
  | { retryable: true; message: string; retryAfterMs?: number }
  | { retryable: false; message: string; aborted?: boolean }

/**
 * Decides whether a failed model call is worth another attempt: network
 * errors, 408, 409, 429 and 5xx are; auth, context length, content filter,
 * other 4xx and aborts are not.
 */
export function classifyModelError(error: unknown): ModelFailure {
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

export function retryDelayMs(
  attempt: number,
  options: RetryOptions,
  retryAfterMs?: number,
  random = Math.random,
) {
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, options.maxDelayMs)
  const exponential = options.baseDelayMs * 2 ** (attempt - 1)
  // Full jitter: spreads retries of concurrent runs instead of synchronizing them.
  return Math.round(Math.min(options.maxDelayMs, exponential) * (0.5 + random() * 0.5))
}

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

function isNetworkError(error: unknown): boolean {
  const codes = [
    'ECONNRESET',
    'ECONNREFUSED',
    'ETIMEDOUT',
    'EPIPE',
    'ENOTFOUND',
    'EAI_AGAIN',
    'UND_ERR_SOCKET',
  ]
  let current: unknown = error
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code
    if (typeof code === 'string' && codes.includes(code)) return true
    if (current instanceof TypeError && /fetch failed|network/i.test(current.message)) return true
    current = current.cause
  }
  return false
}

export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message
  return typeof error === 'string' ? error : JSON.stringify(error)
}
