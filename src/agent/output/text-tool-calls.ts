import type { AnyTool } from '../../tool.ts'
import { isRecord } from '../../util/is-record.ts'
import { extractJsonObject } from './partial-json.ts'

/**
 * Tool calls a local model writes in its text when its server does not turn
 * them into real calls: Qwen's and Hermes' `<tool_call>{"name", "arguments"}</tool_call>`,
 * Llama's `{"name", "parameters"}`, the same in a fenced JSON block or after
 * `<|python_tag|>`. They are unwrapped here and validated like any other call.
 */

/** The JSON object a text carries as its call: the first `<tool_call>` block's, else the first one outside any thinking. */
export function jsonInText(text: string): unknown {
  const spoken = text.replace(/<think>[\s\S]*?<\/think>/g, '')
  const block = /<tool_call>([\s\S]*?)(?:<\/tool_call>|$)/.exec(spoken)
  const inBlock = block?.[1] === undefined ? undefined : extractJsonObject(block[1])
  return inBlock ?? extractJsonObject(spoken)
}

/**
 * `{"name": "AgentOutput", "arguments": {...}}` → its arguments;
 * `{"name": "click", "parameters": {...}}` → `{ action: { click: {...} } }`.
 * Anything else is returned as it is.
 */
export function unwrapCallEnvelope(value: unknown, tools: Map<string, AnyTool>, repairs: string[]): unknown {
  if (!isRecord(value) || typeof value.name !== 'string' || 'action' in value) return value
  const key = ['arguments', 'parameters', 'input', 'args'].find((name) => name in value)
  if (key === undefined || tools.has('name')) return value
  const args = parsedArguments(value[key])
  repairs.push(`tool call written as { name, ${key} }`)
  if (value.name === 'AgentOutput') return args
  return { action: { [value.name]: args } }
}

/** Arguments are often a JSON string, as on the wire. */
function parsedArguments(args: unknown): unknown {
  if (typeof args !== 'string') return args
  try {
    return JSON.parse(args)
  } catch {
    return args
  }
}
