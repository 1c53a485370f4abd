import { APICallError } from 'ai'
import { describe, expect, test } from 'vitest'
import { classifyModelError, retryDelayMs } from '../../src/agent/retry.ts'
import { AbortError } from '../../src/tool.ts'

function apiError(statusCode: number, headers?: Record<string, string>, responseBody?: string) {
  return new APICallError({
    message: `HTTP ${statusCode}`,
    url: 'http://x',
    requestBodyValues: {},
    statusCode,
    ...(headers ? { responseHeaders: headers } : {}),
    ...(responseBody ? { responseBody } : {}),
  })
}

describe('classifyModelError', () => {
  test.each([429, 500, 502, 503, 408])('retries HTTP %i', (status) => {
    expect(classifyModelError(apiError(status)).retryable).toBe(true)
  })

  test.each([400, 401, 403, 404])('does not retry HTTP %i', (status) => {
    expect(classifyModelError(apiError(status)).retryable).toBe(false)
  })

  test('does not retry context length or content filter errors, even on a retryable status', () => {
    expect(classifyModelError(apiError(400, undefined, '{"code":"context_length_exceeded"}')).retryable).toBe(
      false,
    )
    expect(classifyModelError(apiError(500, undefined, 'blocked by content_filter')).retryable).toBe(false)
  })

  test('retries network errors and never an abort', () => {
    const reset = Object.assign(new TypeError('fetch failed'), {
      cause: Object.assign(new Error('x'), { code: 'ECONNRESET' }),
    })
    expect(classifyModelError(reset).retryable).toBe(true)
    expect(classifyModelError(new AbortError())).toMatchObject({ retryable: false, aborted: true })
  })

  test('reads Retry-After in seconds, as a date, and retry-after-ms', () => {
    expect(classifyModelError(apiError(429, { 'retry-after': '7' }))).toMatchObject({ retryAfterMs: 7000 })
    expect(classifyModelError(apiError(429, { 'retry-after-ms': '250' }))).toMatchObject({
      retryAfterMs: 250,
    })
    const later = new Date(Date.now() + 60_000).toUTCString()
    const fromDate = classifyModelError(apiError(503, { 'retry-after': later }))
    expect(fromDate.retryable && fromDate.retryAfterMs).toBeGreaterThan(50_000)
  })
})

describe('retryDelayMs', () => {
  const options = { maxRetries: 5, baseDelayMs: 100, maxDelayMs: 1000 }

  test('grows exponentially with jitter between half and full delay, capped', () => {
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
