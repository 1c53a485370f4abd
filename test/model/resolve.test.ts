import { jsonSchema, streamText, tool } from 'ai'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { ModelConfigError } from '../../src/model/model-errors.ts'
import { resolveModel } from '../../src/model/resolve.ts'
import { doneTurn, type FakeOpenAI, navigateTurn, startFakeOpenAI } from '../support/models/fake-openai.ts'

describe('resolveModel', () => {
  test('an openai model with a key', () => {
    const resolved = resolveModel('openai/gpt-4.1-mini', { apiKey: 'sk-test' })
    expect(resolved).toMatchObject({
      name: 'openai/gpt-4.1-mini',
      provider: 'openai',
      modelId: 'gpt-4.1-mini',
    })
  })

  test('the default model when the run names none', () => {
    expect(resolveModel(undefined, { defaultModel: 'openai/gpt-4.1', apiKey: 'k' }).modelId).toBe('gpt-4.1')
  })

  test.each([
    [undefined, {}, 'no_model', /SEXTANT_MODEL/],
    ['  ', { apiKey: 'k' }, 'no_model', /SEXTANT_MODEL/],
    ['gpt-4.1-mini', { apiKey: 'k' }, 'bad_model_name', /provider\/model/],
    ['openai/', { apiKey: 'k' }, 'bad_model_name', /provider\/model/],
    [
      'mistral/large',
      { apiKey: 'k' },
      'unknown_provider',
      /Unknown model provider "mistral".*Known providers: openai, anthropic, google.*SEXTANT_BASE_URL/,
    ],
    ['openai/gpt-4.1-mini', {}, 'missing_key', /SEXTANT_API_KEY or OPENAI_API_KEY/],
    // The OpenAI key is not sent to another provider.
    ['anthropic/claude-sonnet-4-5', { apiKey: 'k' }, 'missing_key', /ANTHROPIC_API_KEY/],
    ['google/gemini-2.5-flash', { apiKey: 'k' }, 'missing_key', /GOOGLE_GENERATIVE_AI_API_KEY/],
    // SEXTANT_BASE_URL is an OpenAI-compatible endpoint: it never silently takes a native provider's model.
    [
      'anthropic/claude-sonnet-4-5',
      { baseUrl: 'http://127.0.0.1:1/v1', apiKey: 'k' },
      'missing_key',
      /never through SEXTANT_BASE_URL.*set ANTHROPIC_API_KEY.*SEXTANT_ANTHROPIC_BASE_URL.*"openai\/claude-sonnet-4-5"/,
    ],
    [
      'google/gemini-2.5-flash',
      { baseUrl: 'http://127.0.0.1:1/v1' },
      'missing_key',
      /never through SEXTANT_BASE_URL.*set GOOGLE_GENERATIVE_AI_API_KEY.*SEXTANT_GOOGLE_BASE_URL.*"openai\/gemini-2.5-flash"/,
    ],
    ['constructor/x', { apiKey: 'k' }, 'unknown_provider', /Unknown model provider "constructor"/],
  ])('%j with %j fails with %s', (name, settings, code, message) => {
    let caught: unknown
    try {
      resolveModel(name, settings)
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(ModelConfigError)
    expect((caught as ModelConfigError).code).toBe(code)
    expect((caught as ModelConfigError).message).toMatch(message)
  })

  test('with a base URL any prefix, no prefix, and no key are accepted', () => {
    const baseUrl = 'http://127.0.0.1:1/v1'
    expect(resolveModel('ollama/qwen2.5:7b', { baseUrl })).toMatchObject({
      provider: 'ollama',
      modelId: 'qwen2.5:7b',
    })
    expect(resolveModel('llama3.2', { baseUrl })).toMatchObject({
      provider: 'compatible',
      modelId: 'llama3.2',
    })
    expect(resolveModel('vllm/meta-llama/Llama-3.1-8B', { baseUrl }).modelId).toBe('meta-llama/Llama-3.1-8B')
    // openai/… is the way to send any model, a Claude too, over the OpenAI-compatible API.
    expect(resolveModel('openai/claude-sonnet-4-5', { baseUrl })).toMatchObject({
      provider: 'openai',
      modelId: 'claude-sonnet-4-5',
    })
  })
})

describe('an OpenAI-compatible endpoint over HTTP', () => {
  let fake: FakeOpenAI
  beforeAll(async () => {
    fake = await startFakeOpenAI()
  })
  afterAll(() => fake.close())

  async function callAgentOutput(apiKey?: string) {
    const { model } = resolveModel('local/test-model', {
      baseUrl: fake.baseUrl,
      ...(apiKey ? { apiKey } : {}),
    })
    const result = streamText({
      model,
      prompt: 'Go.',
      tools: { AgentOutput: tool({ description: 'step', inputSchema: jsonSchema({ type: 'object' }) }) },
      toolChoice: { type: 'tool', toolName: 'AgentOutput' },
      maxRetries: 0,
      onError: () => {},
    })
    const deltas: string[] = []
    let input: unknown
    for await (const part of result.stream) {
      if (part.type === 'tool-input-delta') deltas.push(part.delta)
      if (part.type === 'tool-call') input = part.input
      if (part.type === 'error') throw part.error
    }
    return { input, deltas, usage: await result.totalUsage }
  }

  test('streams the tool call in pieces, with usage, and no Authorization without a key', async () => {
    fake.enqueue(
      navigateTurn('https://example.com/', { pieces: 5, usage: { promptTokens: 7, completionTokens: 3 } }),
    )
    const { input, deltas, usage } = await callAgentOutput()
    expect(input).toMatchObject({ action: { navigate: { url: 'https://example.com/' } } })
    expect(deltas.length).toBeGreaterThan(1)
    expect(usage).toMatchObject({ inputTokens: 7, outputTokens: 3, totalTokens: 10 })
    const request = fake.requests.at(-1)!
    expect(request.headers.authorization).toBeUndefined()
    expect(request.body).toMatchObject({ model: 'test-model', stream: true })
  })

  test('sends the key as a bearer token when there is one', async () => {
    fake.enqueue(doneTurn())
    await callAgentOutput('sk-local')
    expect(fake.requests.at(-1)!.headers.authorization).toBe('Bearer sk-local')
  })

  test('a scripted error status reaches the caller as an API error', async () => {
    fake.enqueue({ status: 429, retryAfterSeconds: 1, text: 'slow down' })
    await expect(callAgentOutput()).rejects.toMatchObject({ statusCode: 429 })
  })
})
