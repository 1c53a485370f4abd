import { backoffDelayMs } from '../../util/backoff.ts'
import type { RetryOptions } from '../run/run-options.ts'

export const defaultRetry: RetryOptions = { maxRetries: 3, baseDelayMs: 500, maxDelayMs: 20_000 }

/**
 * How long to wait before retry number `attempt` (1-based) of a model call.
 * A wait the provider asked for (Retry-After) wins, within the cap.
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
