import { afterEach, describe, expect, test } from 'vitest'
import { resolveModel } from '../../src/model/resolve.ts'
import { doneTurn, type FakeOpenAI, startFakeOpenAI } from '../support/models/fake-openai.ts'
import { agentOutput } from '../support/models/scripted-model.ts'
import { collect, doneOf, ofType } from '../support/run.ts'

// A local OpenAI-compatible server (Ollama, llama.cpp, vLLM) through SEXTANT_BASE_URL: the forced call in
// the form it enforces, calls its models write as text, and a prompt it cut to fit its context window.

const waitOutput = agentOutput({ wait: { seconds: 1 } }, 'Waited once.', 'Wait.')
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

  test('a prompt the server cut to fit its context is warned about, once, with how to enlarge it', async () => {
    // Ollama reports what it kept of a cut prompt as prompt_tokens (its prompt_eval_count): here a
    // 4,096-token window, a little of it left for the answer, under a step of about 8,000 tokens (the system prompt alone no longer makes a step large).
    const cut = { promptTokens: 3900, completionTokens: 20 }
    const task = `Finish the task. ${'Read every paragraph of the long brief before acting. '.repeat(800)}`
    const events = await runCompatibleTask(
      task,
      'ollama/qwen3:8b',
      { output: waitOutput, usage: cut },
      { output: doneOutput, usage: cut },
    )
    expect(doneOf(events)).toMatchObject({ reason: 'model_stop' })
    const warnings = ofType(events, 'warning').filter((event) => event.code === 'context_truncated')
    expect(warnings).toHaveLength(1)
    expect(warnings[0]?.message).toMatch(/read 3900 tokens of a step of about \d{4}/)
    expect(warnings[0]?.message).toContain('OLLAMA_CONTEXT_LENGTH')
    expect(warnings[0]?.message).toContain('num_ctx')
  })

  test('a prompt read in full gives no warning', async () => {
    const events = await runCompatible(
      'ollama/qwen3:8b',
      doneTurn('All done.', true, { usage: { promptTokens: 6000, completionTokens: 20 } }),
    )
    expect(ofType(events, 'warning').filter((event) => event.code === 'context_truncated')).toEqual([])
  })
})
