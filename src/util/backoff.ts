/** The growth of a retried call's waits: what model calls and webhook deliveries share. */
export interface BackoffOptions {
  baseDelayMs: number
  maxDelayMs: number
}

/**
 * How long to wait before retry number `attempt` (1-based): doubling from
 * `baseDelayMs`, capped at `maxDelayMs`, with equal jitter. Half the delay is
 * fixed, half random: the random half spreads retries of concurrent callers
 * instead of synchronizing them; the fixed half keeps a retry from coming
 * almost at once, which full jitter allows.
 */
export function backoffDelayMs(attempt: number, options: BackoffOptions, random = Math.random): number {
  const exponential = options.baseDelayMs * 2 ** (attempt - 1)
  return Math.round(Math.min(options.maxDelayMs, exponential) * (0.5 + random() * 0.5))
}
