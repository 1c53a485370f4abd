import { afterEach, describe, expect, test } from 'vitest'
import { loadConfig } from '../../src/config.ts'
import { modelSettingsFrom, resolveModel } from '../../src/model/resolve.ts'
import { type Recording, recordingVersion } from '../../src/recording/schema.ts'
import { anthropicToolUse } from '../support/models/fake-anthropic.ts'
import { type FakeProvider, startFakeProvider } from '../support/models/fake-provider.ts'
import { type FakeResponses, startFakeResponses } from '../support/models/fake-responses-server.ts'
import { agentOutput } from '../support/models/scripted-model.ts'
import { collect, doneOf } from '../support/run.ts'

// Each API's own form of "call this one tool, never several", of OpenAI's strict schemas and of its
// store flag, checked on the wire through the real AI SDK provider packages. The OpenAI-compatible
// path's forms are in local-servers.test.ts.

const doneOutput = agentOutput({ done: { text: 'All done.', success: true } }, 'Finished.', 'Report.')

let fake: FakeProvider | undefined
let responses: FakeResponses | undefined
afterEach(async () => {
  await fake?.close()
  await responses?.close()
  fake = responses = undefined
  delete process.env.OPENAI_BASE_URL
})

describe("Anthropic's Messages API", () => {
  test('is sent disable_parallel_tool_use with the forced tool', async () => {
    fake = await startFakeProvider('/v1', () =>
      anthropicToolUse(doneOutput, { input: 300, cacheRead: 0, cacheWrite: 0, output: 20 }),
    )
    const { model, name } = resolveModel('anthropic/claude-sonnet-4-5', {
      anthropicApiKey: 'sk-ant-test',
      anthropicBaseUrl: fake.baseUrl,
    })
    const events = await collect({ task: 'Finish.', model, modelName: name, browser: null })
    expect(doneOf(events)).toMatchObject({ reason: 'model_stop' })
    expect(fake.requests[0]?.body.tool_choice).toEqual({
      type: 'tool',
      name: 'AgentOutput',
      disable_parallel_tool_use: true,
    })
  })
})

describe("OpenAI's Responses API", () => {
  const recording = (output: Record<string, unknown>): Recording => ({
    version: recordingVersion,
    task: 'Read the product off the page.',
    output,
    steps: [],
  })
  const withOptional = {
    type: 'object',
    properties: {
      title: { type: 'string' },
      note: { type: 'string', description: 'Only when the page has one.' },
      sizes: {
        type: 'array',
        items: {
          type: 'object',
          properties: { label: { type: 'string' }, stock: { type: 'integer' } },
          required: ['label'],
        },
      },
    },
    required: ['title'],
  }

  async function replayAgainst(
    output: Record<string, unknown>,
    answer: unknown,
    env: NodeJS.ProcessEnv = {},
  ) {
    responses = await startFakeResponses(() => answer)
    process.env.OPENAI_BASE_URL = responses.baseUrl
    // Through the config, as the CLI and the server build their models.
    const config = loadConfig({ SEXTANT_MODEL: 'openai/gpt-4.1-mini', OPENAI_API_KEY: 'sk-test', ...env })
    const { model, name } = resolveModel(undefined, modelSettingsFrom(config))
    return collect({ replay: recording(output), model, modelName: name, browser: null })
  }

  test('a replay whose output schema has optional fields succeeds under strict mode, without the nulls', async () => {
    const answer = { title: 'Widget', note: null, sizes: [{ label: 'S', stock: null }] }
    const events = await replayAgainst(withOptional, answer)
    expect(doneOf(events)).toMatchObject({
      reason: 'model_stop',
      result: { success: true, data: { title: 'Widget', sizes: [{ label: 'S' }] } },
    })
    expect(doneOf(events).result.data).toEqual({ title: 'Widget', sizes: [{ label: 'S' }] })
    const body = responses?.requests[0]?.body ?? {}
    const format = (body.text as { format: { strict: boolean; schema: Record<string, unknown> } }).format
    expect(format.strict).toBe(true)
    expect(format.schema).toMatchObject({ required: ['title', 'note', 'sizes'], additionalProperties: false })
    // OpenAI keeps nothing of the run unless the operator asks.
    expect(body.store).toBe(false)
  })

  test('a schema with no strict form (an open map) is sent without strict, and succeeds', async () => {
    const prices = {
      type: 'object',
      properties: { prices: { type: 'object', additionalProperties: { type: 'number' } } },
    }
    const events = await replayAgainst(prices, { prices: { small: 3, large: 5 } })
    expect(doneOf(events)).toMatchObject({
      reason: 'model_stop',
      result: { data: { prices: { small: 3, large: 5 } } },
    })
    const format = (responses?.requests[0]?.body.text ?? {}) as { format?: { strict: boolean } }
    expect(format.format?.strict).toBe(false)
  })

  test.each(['gpt-4.1-mini', 'o4-mini'])(
    'a step to %s forces AgentOutput, turns parallel calls off and asks OpenAI not to store it',
    async (modelId) => {
      responses = await startFakeResponses(() => doneOutput)
      process.env.OPENAI_BASE_URL = responses.baseUrl
      const { model, name } = resolveModel(`openai/${modelId}`, { apiKey: 'sk-test' })
      const events = await collect({ task: 'Finish.', model, modelName: name, browser: null })
      expect(doneOf(events)).toMatchObject({ reason: 'model_stop', result: { text: 'All done.' } })
      expect(responses.requests[0]?.body).toMatchObject({
        stream: true,
        tool_choice: { type: 'function', name: 'AgentOutput' },
        // The Responses API takes the flag for every model, o-series included.
        parallel_tool_calls: false,
        store: false,
      })
    },
  )

  test('SEXTANT_OPENAI_STORE=true sends store: true', async () => {
    await replayAgainst(
      withOptional,
      { title: 'Widget', note: null, sizes: [] },
      { SEXTANT_OPENAI_STORE: 'true' },
    )
    expect(responses?.requests[0]?.body.store).toBe(true)
  })
})
