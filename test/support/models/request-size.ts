import { countTokens } from '../../../src/util/tokens.ts'

/**
 * Tokens of one model request as a provider's API receives it (o200k_base):
 * the tool definitions as their JSON (what a local server's chat template
 * prints), the system prompt's text and the messages' text, whatever each
 * API calls them (Responses `input`, Chat `messages`, Anthropic `system` and
 * `messages`, Gemini `systemInstruction` and `contents`). Shared by the
 * prompt-size bench and the test that holds the fixed prefix to its budget.
 */
export interface RequestSize {
  system: number
  tools: number
  messages: number
}

const textKeys = new Set(['text', 'content', 'instructions'])
/** Keys whose strings are labels of the API, not text the model reads. */
const skippedKeys = new Set(['type', 'role', 'cache_control'])

export function requestSize(body: Record<string, unknown>): RequestSize {
  const size: RequestSize = { system: 0, tools: countTokens(JSON.stringify(body.tools ?? [])), messages: 0 }
  const walk = (value: unknown, key: string, inSystem: boolean): void => {
    if (typeof value === 'string') {
      if (inSystem) size.system += countTokens(value)
      else if (textKeys.has(key)) size.messages += countTokens(value)
      return
    }
    if (Array.isArray(value)) {
      for (const item of value) walk(item, key, inSystem)
      return
    }
    if (value === null || typeof value !== 'object') return
    const record = value as Record<string, unknown>
    const system = inSystem || record.role === 'system' || record.role === 'developer'
    for (const [childKey, child] of Object.entries(record)) {
      if (skippedKeys.has(childKey)) continue
      walk(child, childKey, system)
    }
  }
  for (const key of ['instructions', 'input', 'messages', 'contents']) walk(body[key], key, false)
  for (const key of ['system', 'systemInstruction']) walk(body[key], key, true)
  return size
}

/** The part of every step that does not change: the system prompt and the tools. */
export const prefixTokens = (size: RequestSize) => size.system + size.tools
/** The whole prompt of a step. */
export const promptTokens = (size: RequestSize) => size.system + size.tools + size.messages
