import { afterEach, describe, expect, test } from 'vitest'
import { resolveModel } from '../../src/model/resolve.ts'
import { doneTurn, type FakeOpenAI, startFakeOpenAI } from '../support/models/fake-openai.ts'
import { agentOutput } from '../support/models/scripted-model.ts'
import { collect, doneOf, ofType } from '../support/run.ts'

// A local OpenAI-compatible server (Ollama, llama.cpp, vLLM) through SEXTANT_BASE_URL: the forced call in
// the form it enforces, and calls its models write as text.

const doneOutput = agentOutput({ done: { text: 'All done.', success: true } }, 'Finished.', 'Report.')

let chat: FakeOpenAI | undefined
afterEach(async () => {
  await chat?.close()
  chat = undefined
})

async function runCompatible(modelName: string, ...turns: Parameters<FakeOpenAI['enqueue']>) {
  return runCompatibleTask('Finish the task.', modelName, ...turns)
}

async function runCompatibleTask(
  task: string,
  modelName: string,
  ...turns: Parameters<FakeOpenAI['enqueue']>
) {
  chat = await startFakeOpenAI()
  chat.enqueue(...turns)
  const { model, name } = resolveModel(modelName, { baseUrl: chat.baseUrl })
  return collect({ task, model, modelName: name, browser: null })
}

describe('an OpenAI-compatible server (SEXTANT_BASE_URL)', () => {
  test('is sent tool_choice "required", the form llama.cpp and vLLM enforce, and parallel calls off', async () => {
    const events = await runCompatible('ollama/qwen3:8b', doneTurn('All done.'))
    expect(doneOf(events)).toMatchObject({ reason: 'model_stop', result: { text: 'All done.' } })
    const body = chat?.requests[0]?.body
    expect(body?.tool_choice).toBe('required')
    expect(body?.tools?.map((tool) => tool.function.name)).toEqual(['AgentOutput'])
    expect(body?.parallel_tool_calls).toBe(false)
  })

  test('an o-series model is not sent parallel_tool_calls, which it refuses on Chat Completions', async () => {
    await runCompatible('openai/o3-mini', doneTurn('All done.'))
    const body: Record<string, unknown> = chat?.requests[0]?.body ?? {}
    expect(body.tool_choice).toBe('required')
    expect('parallel_tool_calls' in body).toBe(false)
  })

  test('a Qwen/Hermes <tool_call> envelope written in the text runs like a real call', async () => {
    const call = JSON.stringify({ name: 'AgentOutput', arguments: doneOutput })
    const text = `<think>The task is {finished}.</think>\n<tool_call>\n${call}\n</tool_call>`
    const events = await runCompatible('ollama/qwen3:8b', { text, textOnly: true })
    expect(doneOf(events)).toMatchObject({
      reason: 'model_stop',
      result: { success: true, text: 'All done.' },
    })
    expect(ofType(events, 'tool_call_start').map((event) => event.tool)).toEqual(['done'])
  })

  test('a Llama-style {"name", "parameters"} call of an action in the text runs that action', async () => {
    const text = JSON.stringify({ name: 'done', parameters: { text: 'Llama finished.', success: true } })
    const events = await runCompatible('ollama/llama3.1:8b', { text, textOnly: true })
    expect(doneOf(events)).toMatchObject({ reason: 'model_stop', result: { text: 'Llama finished.' } })
  })

  test('a fenced JSON block with {"name", "arguments"} as a JSON string runs', async () => {
    const call = { name: 'AgentOutput', arguments: JSON.stringify(doneOutput) }
    const text = `Here is my call:\n\`\`\`json\n${JSON.stringify(call, null, 2)}\n\`\`\``
    const events = await runCompatible('ollama/mistral', { text, textOnly: true })
    expect(doneOf(events)).toMatchObject({ reason: 'model_stop', result: { text: 'All done.' } })
  })
})
