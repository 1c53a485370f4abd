import { afterEach, describe, expect, test } from 'vitest'
import { resolveModel } from '../../src/model/resolve.ts'
import { anthropicToolUse } from '../support/models/fake-anthropic.ts'
import { geminiFunctionCall } from '../support/models/fake-google.ts'
import {
  type FakeProvider,
  type RecordedRequest,
  startFakeProvider,
} from '../support/models/fake-provider.ts'
import { agentOutput } from '../support/models/scripted-model.ts'
import { collect, doneOf, ofType } from '../support/run.ts'

/** Step 1 waits (so step 2's prompt carries step 1 in its history), step 2 finishes. */
const waitOutput = agentOutput({ wait: { seconds: 1 } }, 'Waited once.', 'Wait for the page to settle.')
const doneOutput = agentOutput({ done: { text: 'All done.', success: true } }, 'Finished.', 'Report.')

let fake: FakeProvider | undefined
afterEach(async () => {
  await fake?.close()
  fake = undefined
})

interface AnthropicBlock {
  type: string
  text: string
  cache_control?: { type: string }
}

function userBlocks(request: RecordedRequest): AnthropicBlock[] {
  const messages = request.body.messages as { role: string; content: AnthropicBlock[] }[]
  expect(messages).toHaveLength(1)
  return messages[0]?.content ?? []
}

describe('anthropic/<model> through @ai-sdk/anthropic, against a fake Messages API', () => {
  test('streams the forced tool call, marks the cache breakpoints, and counts cached tokens', async () => {
    fake = await startFakeProvider('/v1', (_request, index) =>
      index === 0
        ? anthropicToolUse(waitOutput, { input: 300, cacheRead: 0, cacheWrite: 1200, output: 40 })
        : anthropicToolUse(doneOutput, { input: 200, cacheRead: 1300, cacheWrite: 100, output: 30 }),
    )
    const { model, name } = resolveModel('anthropic/claude-sonnet-4-5', {
      anthropicApiKey: 'sk-ant-test',
      anthropicBaseUrl: fake.baseUrl,
    })
    const events = await collect({ task: 'Wait, then finish.', model, modelName: name, browser: null })

    expect(doneOf(events)).toMatchObject({
      reason: 'model_stop',
      result: { success: true, text: 'All done.' },
    })
    const [first, second] = fake.requests
    expect(first?.url).toBe('/v1/messages')
    expect(first?.headers['x-api-key']).toBe('sk-ant-test')
    expect(first?.body).toMatchObject({ stream: true, tool_choice: { type: 'tool', name: 'AgentOutput' } })

    // The system prompt and the last stable block carry the breakpoint; the page and step counter do not.
    const system = first?.body.system as AnthropicBlock[]
    expect(system.at(-1)?.cache_control).toEqual({ type: 'ephemeral' })
    const firstBlocks = userBlocks(first!)
    const secondBlocks = userBlocks(second!)
    expect(firstBlocks.map((block) => Boolean(block.cache_control))).toEqual([true, false])
    expect(secondBlocks.map((block) => Boolean(block.cache_control))).toEqual([false, true, false])
    expect(secondBlocks.at(-1)?.text).toMatch(/<step>Step 2 of \d+\.<\/step>/)
    // Step 2's prompt starts with step 1's stable block, byte for byte, and adds step 1 after it.
    expect(secondBlocks[0]?.text).toBe(firstBlocks[0]?.text)
    expect(secondBlocks[1]?.text).toMatch(/^Step 1:\n[\s\S]*wait/)

    // The reflection streamed in pieces before the action started.
    const deltas = ofType(events, 'text_delta').filter((event) => event.field === 'memory')
    expect(deltas.map((event) => event.text).join('')).toContain('Waited once.')
    expect(ofType(events, 'tool_call_start').map((event) => event.tool)).toEqual(['wait', 'done'])

    const usages = ofType(events, 'usage').map((event) => event.usage)
    expect(usages[1]).toEqual({
      inputTokens: 1600,
      outputTokens: 30,
      totalTokens: 1630,
      cachedInputTokens: 1300,
      cacheWriteTokens: 100,
    })
    // claude-sonnet-4-5: 3 input, 0.3 cache read, 3.75 cache write, 15 output (USD per million).
    const cost = ofType(events, 'usage')[1]?.costUsd
    expect(cost).toBeCloseTo((200 * 3 + 1300 * 0.3 + 100 * 3.75 + 30 * 15) / 1e6, 12)
    expect(doneOf(events).usage.cachedInputTokens).toBe(1300)
  })
})

describe('google/<model> through @ai-sdk/google, against a fake Generative Language API', () => {
  test('streams the forced function call and counts cached and reasoning tokens', async () => {
    fake = await startFakeProvider('/v1beta', (_request, index) =>
      index === 0
        ? geminiFunctionCall(waitOutput, { prompt: 1500, cached: 0, output: 40 })
        : geminiFunctionCall(doneOutput, { prompt: 1700, cached: 1400, output: 30, thoughts: 12 }),
    )
    const { model, name } = resolveModel('google/gemini-2.5-flash', {
      googleApiKey: 'g-test',
      googleBaseUrl: fake.baseUrl,
    })
    const events = await collect({ task: 'Wait, then finish.', model, modelName: name, browser: null })

    expect(doneOf(events)).toMatchObject({ reason: 'model_stop', result: { success: true } })
    const [first, second] = fake.requests
    expect(first?.url).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse')
    expect(first?.headers['x-goog-api-key']).toBe('g-test')
    expect(first?.body.toolConfig).toMatchObject({
      functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['AgentOutput'] },
    })
    // Gemini caches byte-identical prefixes on its own: step 2's parts start with step 1's stable part.
    const partsOf = (request: RecordedRequest) =>
      (request.body.contents as { parts: { text: string }[] }[])[0]?.parts.map((part) => part.text) ?? []
    expect(partsOf(second!)[0]).toBe(partsOf(first!)[0])

    expect(
      ofType(events, 'text_delta')
        .filter((event) => event.field === 'next_goal')
        .map((event) => event.text)
        .join(''),
    ).toContain('Wait for the page to settle.')
    expect(ofType(events, 'tool_call_start').map((event) => event.tool)).toEqual(['wait', 'done'])
    const usage = ofType(events, 'usage')[1]?.usage
    expect(usage).toMatchObject({ inputTokens: 1700, cachedInputTokens: 1400, reasoningTokens: 12 })
    expect(ofType(events, 'usage')[1]?.costUsd).not.toBeNull()
  })
})

describe('a native provider beside SEXTANT_BASE_URL', () => {
  test('anthropic/<model> still goes to the Messages API with its cache breakpoints, not to the base URL', async () => {
    fake = await startFakeProvider('/v1', () =>
      anthropicToolUse(doneOutput, { input: 300, cacheRead: 0, cacheWrite: 0, output: 20 }),
    )
    // An OpenAI-compatible endpoint nothing listens on: a request sent there would fail the run.
    const { model, name, provider } = resolveModel('anthropic/claude-sonnet-4-5', {
      baseUrl: 'http://127.0.0.1:1/v1',
      apiKey: 'sk-openai-compatible',
      anthropicApiKey: 'sk-ant-test',
      anthropicBaseUrl: fake.baseUrl,
    })
    expect(provider).toBe('anthropic')
    const events = await collect({ task: 'Finish.', model, modelName: name, browser: null })
    expect(doneOf(events)).toMatchObject({ reason: 'model_stop', result: { text: 'All done.' } })
    const [request] = fake.requests
    expect(request?.url).toBe('/v1/messages')
    expect(request?.headers['x-api-key']).toBe('sk-ant-test')
    const system = (request?.body.system ?? []) as AnthropicBlock[]
    expect(system.at(-1)?.cache_control).toEqual({ type: 'ephemeral' })
  })

  test('google/<model> still goes to the Generative Language API, not to the base URL', async () => {
    fake = await startFakeProvider('/v1beta', () =>
      geminiFunctionCall(doneOutput, { prompt: 300, cached: 0, output: 20 }),
    )
    const { model, name } = resolveModel('google/gemini-2.5-flash', {
      baseUrl: 'http://127.0.0.1:1/v1',
      googleApiKey: 'g-test',
      googleBaseUrl: fake.baseUrl,
    })
    const events = await collect({ task: 'Finish.', model, modelName: name, browser: null })
    expect(doneOf(events)).toMatchObject({ reason: 'model_stop' })
    expect(fake.requests[0]?.url).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse')
  })
})
