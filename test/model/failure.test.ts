import { APICallError } from 'ai'
import { describe, expect, test } from 'vitest'
import { classifyModelFailure } from '../../src/model/failure.ts'
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

describe('classifyModelFailure', () => {
  test.each([429, 500, 502, 503, 408])('retries HTTP %i', (status) => {
    expect(classifyModelFailure(apiError(status)).retryable).toBe(true)
  })

  test.each([400, 401, 403, 404])('does not retry HTTP %i', (status) => {
    expect(classifyModelFailure(apiError(status)).retryable).toBe(false)
  })

  test('does not retry context length or content filter errors, even on a retryable status', () => {
    expect(
      classifyModelFailure(apiError(400, undefined, '{"code":"context_length_exceeded"}')).retryable,
    ).toBe(false)
    expect(classifyModelFailure(apiError(500, undefined, 'blocked by content_filter')).retryable).toBe(false)
  })

  test('retries network errors and never an abort', () => {
    const reset = Object.assign(new TypeError('fetch failed'), {
      cause: Object.assign(new Error('x'), { code: 'ECONNRESET' }),
    })
    expect(classifyModelFailure(reset).retryable).toBe(true)
    expect(classifyModelFailure(new AbortError())).toMatchObject({ retryable: false, aborted: true })
  })

  test('reads Retry-After in seconds, as a date, and retry-after-ms', () => {
    expect(classifyModelFailure(apiError(429, { 'retry-after': '7' }))).toMatchObject({ retryAfterMs: 7000 })
    expect(classifyModelFailure(apiError(429, { 'retry-after-ms': '250' }))).toMatchObject({
      retryAfterMs: 250,
    })
    const later = new Date(Date.now() + 60_000).toUTCString()
    const fromDate = classifyModelFailure(apiError(503, { 'retry-after': later }))
    expect(fromDate.retryable && fromDate.retryAfterMs).toBeGreaterThan(50_000)
  })
})
