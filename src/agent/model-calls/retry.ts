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
  const exponential = options.baseDelayMs * 2 ** (attempt - 1)
  // Equal jitter: half the delay is fixed, half random. The random half spreads retries of
  // concurrent runs instead of synchronizing them; the fixed half keeps a retry from
  // coming almost at once, which full jitter allows.
  return Math.round(Math.min(options.maxDelayMs, exponential) * (0.5 + random() * 0.5))
}
