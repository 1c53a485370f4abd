import { createAnthropic } from '@ai-sdk/anthropic'
import { createGoogleGenerativeAI } from '@ai-sdk/google'
import { createOpenAI } from '@ai-sdk/openai'
import type { LanguageModel } from 'ai'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startModelStream } from '../../../src/agent/model-calls/model-stream.ts'
import { agentOutputJsonSchema } from '../../../src/agent/output/output.ts'
import { buildSystemPrompt } from '../../../src/agent/prompt/system-prompt.ts'
import { buildToolRegistry } from '../../../src/agent/tools/registry.ts'
import { browserTools } from '../../../src/browser/actions/browser-actions.ts'
import type { BrowserToolSurface } from '../../../src/browser/session/tool-surface.ts'
import { type FakeProvider, startFakeProvider } from '../../support/models/fake-provider.ts'
import { prefixTokens, requestSize } from '../../support/models/request-size.ts'

// The part of every step that never changes (system prompt + the AgentOutput tool, built from every
// action's descriptor) is what a small local model's context must hold before any page: Ollama's
// default is 4,096 tokens. It is counted here as each provider really receives it, through the real
// AI SDK provider package, so that an action's longer description or a new field shows up as growth.
// bench/prompt-size.bench.ts measures whole steps on real pages; docs/models.md "Step size" has the figures.

/**
 * o200k_base tokens. A default run's prefix was 3,318 before the prompt and the schema were shrunk
 * (#43), and was about 1,657 since; read_console and read_network (#45) brought it to 1,721, nearly
 * all of it their two members of the action union: the budget leaves a few tokens, so a sentence may
 * be added but not a paragraph per action.
 */
const defaultRunBudget = 1_725
/** A run offered every action (vision, ask_user, hand_over, dispatch_agent) with secrets: was 4,742, 2,519 since. */
const everyOptionBudget = 2_525

let listener: FakeProvider
beforeAll(async () => {
  // An empty stream: only the request matters.
  listener = await startFakeProvider('/v1', () => [])
})
afterAll(() => listener.close())

const providers: Record<string, (baseURL: string) => LanguageModel> = {
  'OpenAI Responses': (baseURL) => createOpenAI({ apiKey: 'test', baseURL })('gpt-4.1-mini'),
  'OpenAI-compatible Chat': (baseURL) => createOpenAI({ apiKey: 'test', baseURL }).chat('qwen3:8b'),
  Anthropic: (baseURL) => createAnthropic({ apiKey: 'test', baseURL })('claude-sonnet-4-5'),
  Gemini: (baseURL) => createGoogleGenerativeAI({ apiKey: 'test', baseURL })('gemini-2.5-flash'),
}

type Options = Parameters<typeof buildToolRegistry>[1] & { secrets?: boolean }

/** The tokens of the fixed prefix one provider sends for a run built with `options`. */
async function sentPrefix(provider: keyof typeof providers, options: Options): Promise<number> {
  // Building the tools reads nothing of the session: each reads it only when called.
  const tools = buildToolRegistry(browserTools({} as BrowserToolSurface), options)
  const system = buildSystemPrompt(tools.values(), undefined, {
    vision: Boolean(options.vision),
    labels: Boolean(options.vision),
    ...(options.secrets ? { secrets: [{ name: 'password', domains: ['bank.example'] }] } : {}),
  })
  const before = listener.requests.length
  const make = providers[provider] as (baseURL: string) => LanguageModel
  const stream = startModelStream(
    make(listener.baseUrl),
    { system, stable: [], volatile: '' },
    agentOutputJsonSchema([...tools.values()]),
    new AbortController().signal,
  )
  for (let part = await stream.next(); !part.done; part = await stream.next()) {
    // Drained: the request has been sent once the stream ends.
  }
  const request = listener.requests[before]
  if (!request) throw new Error(`${provider}: no request reached the listener`)
  return prefixTokens(requestSize(request.body))
}

describe('the fixed prefix of a step (system prompt + AgentOutput tool) fits a small model', () => {
  for (const provider of Object.keys(providers)) {
    test(`${provider}: a default run's prefix is at most ${defaultRunBudget} tokens`, async () => {
      expect(await sentPrefix(provider, {})).toBeLessThanOrEqual(defaultRunBudget)
    })
  }

  test(`a run offered every action, with secrets, stays under ${everyOptionBudget} tokens`, async () => {
    const every: Options = {
      vision: true,
      askUser: async () => '',
      // The registry reads only the desk's cap.
      handover: { maxHandovers: 3 } as never,
      subAgents: { max: 2 },
      secrets: true,
    }
    expect(await sentPrefix('OpenAI-compatible Chat', every)).toBeLessThanOrEqual(everyOptionBudget)
  })
})
