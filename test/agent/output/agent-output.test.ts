import { describe, expect, test } from 'vitest'
import {
  agentOutputJsonSchema,
  OutputAccumulator,
  parseAgentOutput,
} from '../../../src/agent/output/output.ts'
import { buildToolRegistry } from '../../../src/agent/tools/registry.ts'
import { fakeBrowser } from '../../support/fake-browser.ts'

const tools = buildToolRegistry(fakeBrowser().tools(), {})
const reflection = { evaluation_previous_goal: 'Success', memory: 'm', next_goal: 'g' }

function parse(input: unknown, options: { toolName?: string; text?: string } = {}) {
  const rawInput = typeof input === 'string' ? input : JSON.stringify(input)
  return parseAgentOutput(
    input === undefined
      ? { text: options.text ?? '' }
      : {
          text: options.text ?? '',
          toolCall: { toolName: options.toolName ?? 'AgentOutput', input, rawInput },
        },
    tools,
  )
}

describe('parseAgentOutput', () => {
  test('accepts well-formed output without repairs', () => {
    const parsed = parse({ ...reflection, action: { click: { ref: 'b1' } } })
    expect(parsed).toEqual({
      ok: true,
      output: { ...reflection, action: { tool: 'click', input: { ref: 'b1' } } },
      repairs: [],
    })
  })

  test.each([
    [
      'a primitive where an object is expected',
      { ...reflection, action: { wait: 2 } },
      'wait',
      { seconds: 2 },
    ],
    ['null input for an action without fields', { ...reflection, action: { go_back: null } }, 'go_back', {}],
    ['a bare action without the wrapper', { click: { ref: 'b1' } }, 'click', { ref: 'b1' }],
    ['an action given as its name', { ...reflection, action: 'go_back' }, 'go_back', {}],
    [
      'arguments stringified once',
      { ...reflection, action: '{"click": {"ref": "b1"}}' },
      'click',
      { ref: 'b1' },
    ],
    [
      'the whole output stringified twice',
      JSON.stringify(JSON.stringify({ ...reflection, action: { click: { ref: 'b1' } } })),
      'click',
      { ref: 'b1' },
    ],
    [
      'an action input stringified',
      { ...reflection, action: { click: '{"ref":"b1"}' } },
      'click',
      { ref: 'b1' },
    ],
    [
      '{ tool, input } shape',
      { ...reflection, action: { tool: 'click', input: { ref: 'b1' } } },
      'click',
      { ref: 'b1' },
    ],
    [
      'an array of actions',
      { ...reflection, action: [{ click: { ref: 'b1' } }, { go_back: {} }] },
      'click',
      { ref: 'b1' },
    ],
  ])('repairs %s', (_name, input, tool, toolInput) => {
    const parsed = parse(input)
    expect(parsed.ok).toBe(true)
    if (!parsed.ok) return
    expect(parsed.output.action).toEqual({ tool, input: toolInput })
    expect(parsed.repairs.length).toBeGreaterThan(0)
  })

  test('repairs a tool name called directly', () => {
    const parsed = parse({ ref: 'b1' }, { toolName: 'click' })
    expect(parsed.ok && parsed.output.action).toEqual({ tool: 'click', input: { ref: 'b1' } })
  })

  test('repairs JSON written in plain text instead of a tool call', () => {
    const parsed = parse(undefined, {
      text: `Sure! \`\`\`json\n${JSON.stringify({ ...reflection, action: { done: { text: 'x', success: true } } })}\n\`\`\``,
    })
    expect(parsed.ok && parsed.output.action).toEqual({ tool: 'done', input: { text: 'x', success: true } })
  })

  test.each([
    ['no output at all', undefined, /No AgentOutput/],
    [
      'an unknown action',
      { ...reflection, action: { fly: {} } },
      /Unknown action "fly".*Available actions: click/,
    ],
    ['an invalid input', { ...reflection, action: { click: { ref: 5 } } }, /Invalid input for click/],
    ['an action that is a number', { ...reflection, action: 7 }, /"action" must be an object/],
    ['a truncated document', '{"memory": "x", "action": {"cli', /./],
  ])('rejects %s with a message for the model', (_name, input, message) => {
    const parsed = parse(input)
    expect(parsed.ok).toBe(false)
    if (!parsed.ok) expect(parsed.error).toMatch(message)
  })
})

describe('OutputAccumulator', () => {
  test('streams each reflection field as its characters arrive', () => {
    const accumulator = new OutputAccumulator()
    const json = JSON.stringify({ ...reflection, memory: 'remember this', action: { go_back: {} } })
    const deltas = []
    for (let i = 0; i < json.length; i += 5) deltas.push(...accumulator.addToolInput(json.slice(i, i + 5)))
    const memory = deltas.filter((d) => d.type === 'text_delta' && d.field === 'memory')
    expect(memory.length).toBeGreaterThan(1)
    expect(memory.map((d) => (d.type === 'text_delta' ? d.text : '')).join('')).toBe('remember this')
  })
})

describe('agentOutputJsonSchema', () => {
  test('offers one action member per registered tool', () => {
    const schema = agentOutputJsonSchema([...tools.values()]) as {
      properties: { action: { anyOf: { required: string[] }[] } }
    }
    const names = schema.properties.action.anyOf.map((member) => member.required[0])
    expect(names.sort()).toEqual([...tools.keys()].sort())
  })
})
