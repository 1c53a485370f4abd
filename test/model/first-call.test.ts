import { afterEach, describe, expect, test } from 'vitest'
import { resolveModel } from '../../src/model/resolve.ts'
import { anthropicToolUses } from '../support/models/fake-anthropic.ts'
import { geminiFunctionCalls } from '../support/models/fake-google.ts'
import { type FakeProvider, startFakeProvider } from '../support/models/fake-provider.ts'
import { agentOutput } from '../support/models/scripted-model.ts'
import { collect, doneOf, ofType } from '../support/run.ts'

// Sextant's rule is that the first call of a response runs. Replays of Anthropic's several tool_use
// blocks and Gemini's several functionCall parts, through the real AI SDK provider packages.

const waitOutput = agentOutput({ wait: { seconds: 1 } }, 'Waited once.', 'Wait.')
const doneOutput = agentOutput({ done: { text: 'All done.', success: true } }, 'Finished.', 'Report.')

let fake: FakeProvider | undefined
afterEach(async () => {
  await fake?.close()
  fake = undefined
})

describe('two calls in one answer: the first runs, on every provider', () => {
  test('Anthropic: of two tool_use blocks the first runs', async () => {
    fake = await startFakeProvider('/v1', (_request, index) =>
      index === 0
        ? anthropicToolUses([waitOutput, doneOutput], { input: 300, cacheRead: 0, cacheWrite: 0, output: 40 })
        : anthropicToolUses([doneOutput], { input: 300, cacheRead: 0, cacheWrite: 0, output: 20 }),
    )
    const { model, name } = resolveModel('anthropic/claude-sonnet-4-5', {
      anthropicApiKey: 'sk-ant-test',
      anthropicBaseUrl: fake.baseUrl,
    })
    const events = await collect({ task: 'Wait, then finish.', model, modelName: name, browser: null })
    expect(ofType(events, 'tool_call_start').map((event) => event.tool)).toEqual(['wait', 'done'])
    expect(doneOf(events)).toMatchObject({ reason: 'model_stop' })
    // The reflection that streamed is the first call's, not a mix of both.
    const memory = ofType(events, 'text_delta').filter((event) => event.field === 'memory')
    expect(memory.map((event) => event.text).join('')).toBe('Waited once.Finished.')
  })

  test('Gemini: of two functionCall parts the first runs', async () => {
    fake = await startFakeProvider('/v1beta', (_request, index) =>
      index === 0
        ? geminiFunctionCalls([waitOutput, doneOutput], { prompt: 900, cached: 0, output: 40 })
        : geminiFunctionCalls([doneOutput], { prompt: 900, cached: 0, output: 20 }),
    )
    const { model, name } = resolveModel('google/gemini-2.5-flash', {
      googleApiKey: 'g-test',
      googleBaseUrl: fake.baseUrl,
    })
    const events = await collect({ task: 'Wait, then finish.', model, modelName: name, browser: null })
    expect(ofType(events, 'tool_call_start').map((event) => event.tool)).toEqual(['wait', 'done'])
    expect(doneOf(events)).toMatchObject({ reason: 'model_stop' })
  })
})
