import { backoffDelayMs } from '../../util/backoff.ts'
import type { RetryOptions } from '../run/run-options.ts'

/**
 * The cap is a minute so that Gemini's free-tier waits (its RetryInfo asks
 * for up to about 60 s) are waited out; the exponential backoff of 3 retries
 * stays far below it.
 */
export const defaultRetry: RetryOptions = { maxRetries: 3, baseDelayMs: 500, maxDelayMs: 60_000 }

/**
 * How long to wait before retry number `attempt` (1-based) of a model call.
 * A wait the provider asked for (Retry-After, Gemini's RetryInfo) wins, within the cap.
 */
export function retryDelayMs(
  attempt: number,
  options: RetryOptions,
  retryAfterMs?: number,
  random = Math.random,
) {
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, options.maxDelayMs)
  return backoffDelayMs(attempt, options, random)
}

/**
 * The provider asked for a longer wait than the cap allows. Retrying sooner
 * than asked is refused again and spends an attempt (and, on a quota, the
 * quota's patience), so the run ends at once with the provider's words and
 * both figures instead.
 */
export function waitOverCap(options: RetryOptions, retryAfterMs: number | undefined): retryAfterMs is number {
  return retryAfterMs !== undefined && retryAfterMs > options.maxDelayMs
}
