import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { resolveModel } from '../../src/model/resolve.ts'
import { doneTurn, type FakeOpenAI, startFakeOpenAI } from '../support/models/fake-openai.ts'
import { collect, doneOf } from '../support/run.ts'

/**
 * The request the agent itself sends, as the OpenAI-compatible endpoint
 * receives it: the AgentOutput tool is forced and is the only call allowed.
 */
describe("the agent's model request, at the endpoint", () => {
  let fake: FakeOpenAI
  beforeAll(async () => {
    fake = await startFakeOpenAI()
  })
  afterAll(() => fake.close())

  test('forces the AgentOutput tool and turns parallel tool calls off', async () => {
    fake.enqueue(doneTurn())
    const { model } = resolveModel('local/test-model', { baseUrl: fake.baseUrl })
    const events = await collect({ task: 'Say done.', model, browser: null })
    expect(doneOf(events).reason).toBe('model_stop')

    const [request, ...more] = fake.requests
    expect(more).toEqual([])
    expect(request?.body.tools?.map((tool) => tool.function.name)).toEqual(['AgentOutput'])
    // "required" with one tool: the form every OpenAI-compatible server enforces (src/model/request-forms.ts).
    expect(request?.body.tool_choice).toBe('required')
    expect(request?.body.parallel_tool_calls).toBe(false)
  })
})
