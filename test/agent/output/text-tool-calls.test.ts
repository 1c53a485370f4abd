import { describe, expect, test } from 'vitest'
import { parseAgentOutput } from '../../../src/agent/output/output.ts'
import { buildToolRegistry } from '../../../src/agent/tools/registry.ts'
import { fakeBrowser } from '../../support/fake-browser.ts'

// Calls a local model wrote in its text, in its template's own envelope, read as calls.

const tools = buildToolRegistry(fakeBrowser().tools(), {})
const reflection = { evaluation_previous_goal: 'Success', memory: 'm', next_goal: 'g' }
const fromText = (text: string) => parseAgentOutput({ text }, tools)

describe('tool calls written in the text', () => {
  test('the first <tool_call> block counts, and JSON in <think> is skipped', () => {
    const first = JSON.stringify({
      name: 'AgentOutput',
      arguments: { ...reflection, action: { click: { ref: 'b1' } } },
    })
    const second = JSON.stringify({
      name: 'AgentOutput',
      arguments: { ...reflection, action: { go_back: {} } },
    })
    const text = `<think>Maybe {"name": "scroll", "arguments": {}}?</think>\n<tool_call>\n${first}\n</tool_call>\n<tool_call>${second}</tool_call>`
    expect(fromText(text)).toMatchObject({
      ok: true,
      output: { action: { tool: 'click', input: { ref: 'b1' } } },
    })
  })

  test("Llama's {name, parameters} of an action is that action", () => {
    const parsed = fromText(JSON.stringify({ name: 'click', parameters: { ref: 'b1' } }))
    expect(parsed).toMatchObject({ ok: true, output: { action: { tool: 'click', input: { ref: 'b1' } } } })
  })

  test('an unknown name is reported with the actions there are', () => {
    const parsed = fromText(JSON.stringify({ name: 'search_web', arguments: { q: 'x' } }))
    expect(parsed.ok).toBe(false)
    expect(!parsed.ok && parsed.error).toMatch(/Unknown action "search_web"\. Available actions: .*click/)
  })

  test('the envelope inside a real AgentOutput call is unwrapped too', () => {
    const input = {
      name: 'AgentOutput',
      arguments: JSON.stringify({ ...reflection, action: { go_back: {} } }),
    }
    const parsed = parseAgentOutput(
      { text: '', toolCall: { toolName: 'AgentOutput', input, rawInput: JSON.stringify(input) } },
      tools,
    )
    expect(parsed).toMatchObject({ ok: true, output: { action: { tool: 'go_back' } } })
  })
})
