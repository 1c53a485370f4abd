import { createOpenAI } from '@ai-sdk/openai'
import { afterEach, describe, expect, test } from 'vitest'
import type { AgentEvent } from '../../src/events/events.ts'
import { resolveModel } from '../../src/model/resolve.ts'
import {
  anthropicCutOffInToolInput,
  anthropicRefusal,
  anthropicToolUse,
} from '../support/models/fake-anthropic.ts'
import { geminiFunctionCall, geminiPromptBlocked, geminiStopped } from '../support/models/fake-google.ts'
import { type FakeOpenAI, startFakeOpenAI } from '../support/models/fake-openai.ts'
import { responsesCutOff, responsesRefusal } from '../support/models/fake-openai-responses.ts'
import {
  type FakeProvider,
  type RecordedRequest,
  type SseFrame,
  startFakeProvider,
} from '../support/models/fake-provider.ts'
import { agentOutput } from '../support/models/scripted-model.ts'
import { collect, doneOf, ofType } from '../support/run.ts'

// A refusal, a block or a cut-off the provider reports is a named outcome, not "unusable output" three times.

const doneOutput = agentOutput({ done: { text: 'All done.', success: true } }, 'Finished.', 'Report.')
const usage = { prompt: 1200, cached: 0, output: 20 }
const refusalWords = "I'm sorry, but I can't help with logging into someone else's account."

let fake: FakeProvider | undefined
let chat: FakeOpenAI | undefined
afterEach(async () => {
  await fake?.close()
  await chat?.close()
  fake = undefined
  chat = undefined
})

type Resolved = { model: Parameters<typeof collect>[0]['model']; name: string }
const gemini = (url: string): Resolved =>
  resolveModel('google/gemini-2.5-flash', { googleApiKey: 'g-test', googleBaseUrl: url })
const anthropic = (url: string): Resolved =>
  resolveModel('anthropic/claude-sonnet-4-5', { anthropicApiKey: 'sk-ant-test', anthropicBaseUrl: url })
const responses = (url: string): Resolved => ({
  name: 'openai/gpt-5.1',
  model: createOpenAI({ apiKey: 'sk-test', baseURL: url }).responses('gpt-5.1'),
})

async function runAgainst(
  prefix: string,
  resolve: (url: string) => Resolved,
  answers: SseFrame[][],
): Promise<{ events: AgentEvent[]; requests: RecordedRequest[] }> {
  fake = await startFakeProvider(
    prefix,
    (_request, index) => answers[Math.min(index, answers.length - 1)] ?? [],
  )
  const { model, name } = resolve(fake.baseUrl)
  const events = await collect({ task: 'Log in to the account.', model, modelName: name, browser: null })
  return { events, requests: fake.requests }
}

function expectEnded(events: AgentEvent[], kind: string, providerReason: string) {
  const done = doneOf(events)
  expect(done.reason).toBe('error')
  expect(done.result).toMatchObject({ success: false, outcome: { kind, providerReason } })
  const errors = ofType(events, 'error')
  expect(errors.at(-1)).toMatchObject({ retryable: false, message: done.result.text })
  return done.result.text
}

describe('refusals end the run at once, with the refusal in the result and the events', () => {
  test("Anthropic's stop_reason refusal (vercel/ai's recorded stream), with stop_details' words", async () => {
    const { events, requests } = await runAgainst('/v1', anthropic, [anthropicRefusal()])
    const text = expectEnded(events, 'refusal', 'refusal')
    expect(text).toContain('This request triggered restrictions on violative cyber content')
    expect(requests).toHaveLength(1)
  })

  test("OpenAI Chat's delta.refusal", async () => {
    chat = await startFakeOpenAI()
    chat.enqueue({ refusal: refusalWords })
    const { model, name } = resolveModel('openai/gpt-4.1-mini', { baseUrl: chat.baseUrl, apiKey: 'sk-test' })
    const events = await collect({ task: 'Log in to the account.', model, modelName: name, browser: null })
    const text = expectEnded(events, 'refusal', 'refusal')
    expect(text).toBe(`The model refused the task: "${refusalWords}"`)
    expect(chat.requests).toHaveLength(1)
  })

  test("a secret's value in the refusal's words is scrubbed from the result and every event", async () => {
    chat = await startFakeOpenAI()
    chat.enqueue({ refusal: 'I will not type hunter2 into that form.' })
    const { model, name } = resolveModel('openai/gpt-4.1-mini', { baseUrl: chat.baseUrl, apiKey: 'sk-test' })
    const events = await collect({
      task: 'Log in to the account.',
      model,
      modelName: name,
      browser: null,
      secrets: { password: 'hunter2' },
    })
    expect(expectEnded(events, 'refusal', 'refusal')).toContain('I will not type <secret>password</secret>')
    expect(JSON.stringify(events)).not.toContain('hunter2')
  })

  test("the Responses API's refusal content", async () => {
    const { events, requests } = await runAgainst('/v1', responses, [responsesRefusal(refusalWords)])
    expect(expectEnded(events, 'refusal', 'refusal')).toContain(refusalWords)
    expect(requests).toHaveLength(1)
  })
})

describe('blocks end the run at once, naming the provider and its reason', () => {
  test("Gemini's SAFETY", async () => {
    const { events, requests } = await runAgainst('/v1beta', gemini, [geminiStopped('SAFETY')])
    expect(expectEnded(events, 'content_filter', 'SAFETY')).toMatch(/^Gemini's safety filter .*\(SAFETY\)/)
    expect(requests).toHaveLength(1)
  })

  test("Gemini's promptFeedback.blockReason (vercel/ai's recorded stream)", async () => {
    const { events, requests } = await runAgainst('/v1beta', gemini, [geminiPromptBlocked()])
    expect(expectEnded(events, 'blocked_prompt', 'PROHIBITED_CONTENT')).toMatch(
      /^Gemini blocked the prompt .*\(PROHIBITED_CONTENT\)/,
    )
    expect(requests).toHaveLength(1)
  })
})

/** The text of a request's prompt, whatever the provider's message shape. */
function promptOf(request: RecordedRequest | undefined): string {
  return JSON.stringify(request?.body ?? {})
}

describe('what another try can mend is fed back once, then ends the run', () => {
  test("Gemini's RECITATION: the model is told once; a second recitation ends the run", async () => {
    const { events, requests } = await runAgainst('/v1beta', gemini, [
      geminiStopped('RECITATION', 'Four score'),
    ])
    expect(requests).toHaveLength(2)
    expect(promptOf(requests[1])).toContain('stopped for reciting existing text')
    expect(expectEnded(events, 'recitation', 'RECITATION')).toContain('(RECITATION)')
  })

  test("a persistent MALFORMED_FUNCTION_CALL ends as malformed_call with Gemini's finishMessage", async () => {
    const { events, requests } = await runAgainst('/v1beta', gemini, [
      geminiStopped('MALFORMED_FUNCTION_CALL'),
    ])
    expect(requests).toHaveLength(2)
    expect(promptOf(requests[1])).toContain('Malformed function call: AgentOutput')
    expect(expectEnded(events, 'malformed_call', 'MALFORMED_FUNCTION_CALL')).toContain(
      'Malformed function call',
    )
  })

  test('a cut-off inside the tool input is retried once with a note to be brief, and the run goes on', async () => {
    const { events, requests } = await runAgainst('/v1', anthropic, [
      anthropicCutOffInToolInput(doneOutput),
      anthropicToolUse(doneOutput, { input: 300, cacheRead: 0, cacheWrite: 0, output: 20 }),
    ])
    expect(doneOf(events)).toMatchObject({
      reason: 'model_stop',
      result: { success: true, text: 'All done.' },
    })
    expect(requests).toHaveLength(2)
    expect(promptOf(requests[1])).toContain('cut off at the output limit')
    expect(ofType(events, 'error')[0]?.message).toMatch(/cut off at its output limit \(max_tokens\)/)
  })

  test.each([
    ["Anthropic's max_tokens", 'max_tokens'],
    ["the Responses API's incomplete max_output_tokens", 'max_output_tokens'],
    ["OpenAI Chat's finish_reason length", 'length'],
  ])('%s twice ends the run as cut_off', async (_label, reason) => {
    let requests: unknown[]
    let events: AgentEvent[]
    if (reason === 'length') {
      chat = await startFakeOpenAI({ fallback: () => ({ output: doneOutput, cutOff: true, pieces: 8 }) })
      const { model, name } = resolveModel('openai/gpt-4.1-mini', {
        baseUrl: chat.baseUrl,
        apiKey: 'sk-test',
      })
      events = await collect({ task: 'Log in to the account.', model, modelName: name, browser: null })
      requests = chat.requests
    } else {
      const frames =
        reason === 'max_tokens' ? anthropicCutOffInToolInput(doneOutput) : responsesCutOff(doneOutput)
      ;({ events, requests } = await runAgainst('/v1', reason === 'max_tokens' ? anthropic : responses, [
        frames,
      ]))
    }
    expect(requests).toHaveLength(2)
    expect(expectEnded(events, 'cut_off', reason)).toContain(`(${reason})`)
  })

  test('an ordinary answer after a Gemini stop has no outcome', async () => {
    const { events } = await runAgainst('/v1beta', gemini, [
      geminiStopped('RECITATION', 'Four score'),
      geminiFunctionCall(doneOutput, usage),
    ])
    expect(doneOf(events).reason).toBe('model_stop')
    expect(doneOf(events).result.outcome).toBeUndefined()
  })
})
