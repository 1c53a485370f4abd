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

describe('the wait each provider asks for', () => {
  // vercel/ai's packages/google/src/__fixtures__/google-429-retry-info.json, as @ai-sdk/google passes it on.
  const geminiBody = JSON.stringify({
    error: {
      code: 429,
      message: 'You exceeded your current quota, please check your plan.',
      status: 'RESOURCE_EXHAUSTED',
      details: [
        {
          '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
          violations: [{ quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier' }],
        },
        { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '34.4s' },
      ],
    },
  })

  test("Gemini's RetryInfo in the body, with no header", () => {
    expect(classifyModelFailure(apiError(429, {}, geminiBody))).toMatchObject({
      retryable: true,
      retryAfterMs: 34_400,
    })
  })

  test("Anthropic's retry-after header, in seconds", () => {
    expect(classifyModelFailure(apiError(529, { 'retry-after': '12' }))).toMatchObject({
      retryAfterMs: 12_000,
    })
  })

  test('a header wins over the body, and an unreadable delay is no delay', () => {
    expect(classifyModelFailure(apiError(429, { 'retry-after-ms': '900' }, geminiBody))).toMatchObject({
      retryAfterMs: 900,
    })
    const odd = geminiBody.replace('34.4s', 'soon')
    const failure = classifyModelFailure(apiError(429, {}, odd))
    expect(failure.retryable && failure.retryAfterMs).toBeUndefined()
  })

  test("OpenAI's insufficient_quota is a 429 that no wait mends: not retried", () => {
    const body =
      '{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}'
    expect(classifyModelFailure(apiError(429, {}, body)).retryable).toBe(false)
  })
})
