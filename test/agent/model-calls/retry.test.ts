import { describe, expect, test } from 'vitest'
import { retryDelayMs } from '../../../src/agent/model-calls/retry.ts'

describe('retryDelayMs', () => {
  const options = { maxRetries: 5, baseDelayMs: 100, maxDelayMs: 1000 }

  test('grows exponentially with equal jitter (between half and full delay), capped', () => {
    expect(retryDelayMs(1, options, undefined, () => 0)).toBe(50)
    expect(retryDelayMs(1, options, undefined, () => 1)).toBe(100)
    expect(retryDelayMs(3, options, undefined, () => 1)).toBe(400)
    expect(retryDelayMs(10, options, undefined, () => 1)).toBe(1000)
  })

  test('honours Retry-After, within the cap', () => {
    expect(retryDelayMs(1, options, 300)).toBe(300)
    expect(retryDelayMs(1, options, 60_000)).toBe(1000)
  })
})
