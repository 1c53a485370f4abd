import { createOpenAI } from '@ai-sdk/openai'
import { afterEach, describe, expect, test } from 'vitest'
import { resolveModel } from '../../src/model/resolve.ts'
import { anthropicOverloadedMidStream, anthropicToolUse } from '../support/models/fake-anthropic.ts'
import { geminiFunctionCall, geminiRateLimited } from '../support/models/fake-google.ts'
import {
  responsesFunctionCall,
  responsesOverloadedMidStream,
} from '../support/models/fake-openai-responses.ts'
import { type FakeProvider, type SseFrame, startFakeProvider } from '../support/models/fake-provider.ts'
import { agentOutput } from '../support/models/scripted-model.ts'
import { collect, doneOf, ofType } from '../support/run.ts'

// Each provider's errors as it sends them, through the real AI SDK provider packages.

const doneOutput = agentOutput({ done: { text: 'All done.', success: true } }, 'Finished.', 'Report.')
const usage = { prompt: 1200, cached: 0, output: 20 }

let fake: FakeProvider | undefined
afterEach(async () => {
  await fake?.close()
  fake = undefined
})

function gemini(baseUrl: string) {
  return resolveModel('google/gemini-2.5-flash', { googleApiKey: 'g-test', googleBaseUrl: baseUrl })
}
function anthropic(baseUrl: string) {
  return resolveModel('anthropic/claude-sonnet-4-5', {
    anthropicApiKey: 'sk-ant-test',
    anthropicBaseUrl: baseUrl,
  })
}
function responses(baseUrl: string) {
  return {
    name: 'openai/gpt-5.1',
    model: createOpenAI({ apiKey: 'sk-test', baseURL: baseUrl }).responses('gpt-5.1'),
  }
}

describe("Gemini's 429 RESOURCE_EXHAUSTED, whose wait is in the body", () => {
  test('the retry waits the RetryInfo retryDelay, then the run goes on', async () => {
    fake = await startFakeProvider('/v1beta', (_request, index) =>
      index === 0 ? geminiRateLimited('1.5s') : geminiFunctionCall(doneOutput, usage),
    )
    const { model, name } = gemini(fake.baseUrl)
    const events = await collect({ task: 'Finish.', model, modelName: name, browser: null })

    expect(doneOf(events)).toMatchObject({ reason: 'model_stop', result: { success: true } })
    expect(fake.requests).toHaveLength(2)
    const [retry] = ofType(events, 'error')
    expect(retry).toMatchObject({ retryable: true })
    expect(retry?.message).toContain('You exceeded your current quota')
    expect(retry?.message).toMatch(/Retrying in 1\.5 s\.$/)
  })

  test('a wait over the cap ends the run at once, naming both figures and the provider', async () => {
    fake = await startFakeProvider('/v1beta', () => geminiRateLimited('34.4s'))
    const { model, name } = gemini(fake.baseUrl)
    const events = await collect({
      task: 'Finish.',
      model,
      modelName: name,
      browser: null,
      retry: { maxDelayMs: 1_000, baseDelayMs: 1 },
    })

    expect(fake.requests).toHaveLength(1)
    const done = doneOf(events)
    expect(done.reason).toBe('error')
    expect(done.result.text).toMatch(
      /^Gemini asks to wait 34\.4 s before the next request, over the retry cap of 1 s/,
    )
    expect(done.result.text).toContain('You exceeded your current quota')
    expect(ofType(events, 'error').map((event) => event.retryable)).toEqual([false])
  })

  test('the wait is abortable: aborting during it ends the run as user_abort, with no second request', async () => {
    fake = await startFakeProvider('/v1beta', () => geminiRateLimited('30s'))
    const { model, name } = gemini(fake.baseUrl)
    const controller = new AbortController()
    const events = []
    for await (const event of (await import('../../src/agent/loop.ts')).runAgent({
      task: 'Finish.',
      model,
      modelName: name,
      browser: null,
      stuck: false,
      signal: controller.signal,
    })) {
      events.push(event)
      if (event.type === 'error') controller.abort()
    }
    expect(doneOf(events).reason).toBe('user_abort')
    expect(fake.requests).toHaveLength(1)
  })
})

describe("Anthropic's 429 and its retry-after header", () => {
  test('the retry waits the seconds the header names', async () => {
    // The Messages API's error shape (its errors reference): a rate_limit_error body and retry-after in seconds.
    const limited = {
      status: 429,
      headers: { 'retry-after': '1' },
      body: {
        type: 'error',
        error: { type: 'rate_limit_error', message: 'Number of requests has exceeded your rate limit.' },
      },
    }
    fake = await startFakeProvider('/v1', (_request, index) =>
      index === 0
        ? limited
        : anthropicToolUse(doneOutput, { input: 300, cacheRead: 0, cacheWrite: 0, output: 20 }),
    )
    const { model, name } = anthropic(fake.baseUrl)
    const events = await collect({ task: 'Finish.', model, modelName: name, browser: null })
    expect(doneOf(events).reason).toBe('model_stop')
    expect(fake.requests).toHaveLength(2)
    expect(ofType(events, 'error')[0]?.message).toMatch(/exceeded your rate limit.*Retrying in 1\.0 s\.$/)
  })
})

describe('error events after HTTP 200, once the answer has begun, are judged like their HTTP twins', () => {
  const cases: [
    string,
    string,
    (url: string) => { model: Parameters<typeof collect>[0]['model']; name: string },
    SseFrame[],
    SseFrame[],
  ][] = [
    [
      "Anthropic's overloaded_error",
      '/v1',
      anthropic,
      anthropicOverloadedMidStream(doneOutput),
      anthropicToolUse(doneOutput, { input: 300, cacheRead: 0, cacheWrite: 0, output: 20 }),
    ],
    [
      "the Responses API's error event with server_is_overloaded",
      '/v1',
      responses,
      responsesOverloadedMidStream(doneOutput),
      responsesFunctionCall(doneOutput),
    ],
  ]
  test.each(cases)('%s is retried', async (_label, prefix, resolve, failing, answer) => {
    fake = await startFakeProvider(prefix, (_request, index) => (index === 0 ? failing : answer))
    const { model, name } = resolve(fake.baseUrl)
    const events = await collect({
      task: 'Finish.',
      model,
      modelName: name,
      browser: null,
      retry: { baseDelayMs: 1 },
    })

    expect(doneOf(events)).toMatchObject({
      reason: 'model_stop',
      result: { success: true, text: 'All done.' },
    })
    expect(fake.requests).toHaveLength(2)
    const [retry] = ofType(events, 'error')
    expect(retry).toMatchObject({ retryable: true })
    expect(retry?.message).toMatch(/overloaded_error|server_is_overloaded/)
  })

  test("an invalid request or a spent quota is not retried: Anthropic's invalid_request_error, the Responses API's insufficient_quota", async () => {
    const invalid: SseFrame[] = [
      ...anthropicOverloadedMidStream(doneOutput).slice(0, -1),
      {
        event: 'error',
        data: { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long' } },
      },
    ]
    // vercel/ai's recorded openai-error.1.chunks.txt: the error event, then response.failed.
    const quota = {
      type: 'error',
      sequence_number: 5,
      error: {
        type: 'insufficient_quota',
        code: 'insufficient_quota',
        message: 'You exceeded your current quota, please check your plan and billing details.',
        param: null,
      },
    }
    const spent: SseFrame[] = [...responsesOverloadedMidStream(doneOutput).slice(0, -1), { data: quota }]
    for (const [resolve, frames] of [
      [anthropic, invalid],
      [responses, spent],
    ] as const) {
      fake = await startFakeProvider('/v1', () => frames)
      const { model, name } = resolve(fake.baseUrl)
      const events = await collect({
        task: 'Finish.',
        model,
        modelName: name,
        browser: null,
        retry: { baseDelayMs: 1 },
      })
      expect(doneOf(events).reason).toBe('error')
      expect(fake.requests).toHaveLength(1)
      expect(ofType(events, 'error').map((event) => event.retryable)).toEqual([false])
      await fake.close()
      fake = undefined
    }
  })
})
