import { z } from 'zod'
import type { EventDraft } from '../../events/events.ts'
import type { AnyTool } from '../../tool.ts'
import { isRecord } from '../../util/is-record.ts'
import { embeddedSchemaMarker, hoistEmbeddedSchema } from './embedded-schema.ts'
import { extractJsonObject, parsePartialJson } from './partial-json.ts'
import { jsonInText, unwrapCallEnvelope } from './text-tool-calls.ts'

/**
 * The AgentOutput step schema: reflection fields plus exactly one action, and
 * the repair of malformed output before it is rejected.
 */

export const reflectionFields = ['evaluation_previous_goal', 'memory', 'next_goal'] as const
export type ReflectionField = (typeof reflectionFields)[number]

export interface AgentOutput {
  evaluation_previous_goal: string
  memory: string
  next_goal: string
  action: { tool: string; input: unknown }
}

export function agentOutputSchema(tools: AnyTool[]) {
  // Shapes only: what each field and action means is said once, in the system prompt (its steps and
  // its list of actions), since every word here is sent on every step and a small model's context
  // is 4,096 tokens. No member is strict: a second key is repaired (the first action runs), not refused.
  const actions = tools.map((tool) => z.object({ [tool.name]: tool.input }))
  return z.object({
    evaluation_previous_goal: z.string(),
    memory: z.string(),
    next_goal: z.string(),
    action: z.union(actions as unknown as [z.ZodType, ...z.ZodType[]]),
  })
}

export function agentOutputJsonSchema(tools: AnyTool[]): Record<string, unknown> {
  // The dialect ($schema) tells a model nothing; no provider needs it on a tool.
  const { $schema: _dialect, ...schema } = z.toJSONSchema(agentOutputSchema(tools), {
    io: 'input',
    unrepresentable: 'any',
  })
  const action = (schema.properties as Record<string, { anyOf?: Json[] }>).action
  for (const member of action?.anyOf ?? []) untypeObjects(member)
  dropNoise(schema)
  return hoistEmbeddedSchema(schema)
}

type Json = Record<string, unknown>

/**
 * A member `{ <action>: input }` and its input are objects by their
 * properties: `"type": "object"` on both, 28 times over, is said on every
 * step. The member is not strict either (no provider gets this tool in strict
 * mode, which an action's optional fields could not meet), so no
 * `additionalProperties`. An input without fields is `{}`, as the model writes it.
 */
function untypeObjects(member: Json): void {
  if (member.type === 'object' && isRecord(member.properties)) delete member.type
  for (const input of Object.values(isRecord(member.properties) ? member.properties : {})) {
    if (!isRecord(input) || input.type !== 'object' || !isRecord(input.properties)) continue
    delete input.type
    if (Object.keys(input.properties).length === 0) delete input.properties
  }
}

/**
 * Bounds that tell a model nothing it would do otherwise, said on every step:
 * `minLength: 1` on every ref, URL, key and script (the input's own check
 * still refuses an empty one, saying so), and the safe-integer bounds zod
 * gives every integer. A caller's output schema (done's `data`) is shown as given.
 */
function dropNoise(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) dropNoise(item)
    return
  }
  if (!isRecord(node) || node[embeddedSchemaMarker] === true) return
  if (node.minLength === 1 && node.type === 'string') delete node.minLength
  if (node.maximum === Number.MAX_SAFE_INTEGER) delete node.maximum
  if (node.minimum === Number.MIN_SAFE_INTEGER) delete node.minimum
  for (const [key, child] of Object.entries(node)) if (!dataKeywords.has(key)) dropNoise(child)
}

/** Keywords whose values are data, not schemas. */
const dataKeywords = new Set(['const', 'enum', 'default', 'examples'])

/** What the model produced in one response, before validation. */
export interface RawModelOutput {
  text: string
  toolCall?: { toolName: string; input: unknown; rawInput: string }
}

export type ParsedOutput = { ok: true; output: AgentOutput; repairs: string[] } | { ok: false; error: string }

export function parseAgentOutput(raw: RawModelOutput, tools: Map<string, AnyTool>): ParsedOutput {
  const repairs: string[] = []
  let value: unknown
  if (raw.toolCall) {
    value = unwrapJsonString(raw.toolCall.input, repairs)
    if (value === undefined || typeof value === 'string') {
      value = tryJson(raw.toolCall.rawInput) ?? extractJsonObject(raw.toolCall.rawInput) ?? value
    }
    if (raw.toolCall.toolName !== 'AgentOutput' && tools.has(raw.toolCall.toolName)) {
      value = { action: { [raw.toolCall.toolName]: value ?? {} } }
      repairs.push(`called ${raw.toolCall.toolName} directly`)
    }
  } else {
    value = jsonInText(raw.text)
    if (value !== undefined) repairs.push('JSON inside plain text')
  }
  value = unwrapCallEnvelope(value, tools, repairs)
  if (!isRecord(value)) {
    return {
      ok: false,
      error:
        'No AgentOutput was given. Call the AgentOutput tool with your reflection and exactly one action.',
    }
  }
  const action = normalizeAction(value, tools, repairs)
  if (!action.ok) return action
  const output: AgentOutput = {
    evaluation_previous_goal: asText(value.evaluation_previous_goal),
    memory: asText(value.memory),
    next_goal: asText(value.next_goal),
    action: action.action,
  }
  return { ok: true, output, repairs }
}

type NormalizedAction = { ok: true; action: { tool: string; input: unknown } } | { ok: false; error: string }

function normalizeAction(
  output: Record<string, unknown>,
  tools: Map<string, AnyTool>,
  repairs: string[],
): NormalizedAction {
  let action = unwrapJsonString(output.action, repairs)
  if (action === undefined) {
    const bare = Object.keys(output).find((key) => tools.has(key))
    if (bare) {
      action = { [bare]: output[bare] }
      repairs.push('action without its wrapper')
    }
  }
  if (typeof action === 'string' && tools.has(action)) {
    action = { [action]: {} }
    repairs.push('action given as a bare name')
  }
  if (Array.isArray(action)) {
    if (action.length > 1) repairs.push(`${action.length} actions given; only the first runs`)
    action = action[0]
  }
  if (isRecord(action) && typeof action.tool === 'string' && !tools.has('tool')) {
    const named = action.tool
    action = { [named]: action.input ?? action.args ?? action.arguments ?? action.params ?? {} }
    repairs.push('action as { tool, input }')
  }
  if (!isRecord(action)) {
    return {
      ok: false,
      error: `"action" must be an object with one key, the action's name. ${availableActions(tools)}`,
    }
  }
  const names = Object.keys(action)
  const toolName = names.find((name) => tools.has(name))
  const tool = toolName === undefined ? undefined : tools.get(toolName)
  if (toolName === undefined || tool === undefined) {
    const given = names.length > 0 ? `Unknown action "${names[0]}". ` : 'No action given. '
    return { ok: false, error: `${given}${availableActions(tools)}` }
  }
  if (names.length > 1) repairs.push(`${names.length} actions given; only ${toolName} runs`)
  const input = coerceInput(unwrapJsonString(action[toolName], repairs), tool, repairs)
  const parsed = tool.input.safeParse(input)
  if (!parsed.success) {
    return { ok: false, error: `Invalid input for ${toolName}: ${z.prettifyError(parsed.error)}` }
  }
  return { ok: true, action: { tool: toolName, input: parsed.data } }
}

/** A primitive where an object is expected: `{ wait: 3 }` → `{ wait: { seconds: 3 } }`, `{ go_back: null }` → `{}`. */
function coerceInput(input: unknown, tool: AnyTool, repairs: string[]): unknown {
  if (isRecord(input)) return input
  const schema = tool.input
  if (!(schema instanceof z.ZodObject)) return input
  const keys = Object.keys(schema.shape)
  if (input === undefined || input === null || input === '' || (Array.isArray(input) && input.length === 0)) {
    if (!keys.every((key) => schema.shape[key]?.safeParse(undefined).success)) return input
    repairs.push('empty input read as {}')
    return {}
  }
  const required = keys.filter((key) => !schema.shape[key]?.safeParse(undefined).success)
  const target = required.length === 1 ? required[0] : keys.length === 1 ? keys[0] : undefined
  if (target === undefined) return input
  repairs.push(`primitive input wrapped as { ${target} }`)
  return { [target]: input }
}

function unwrapJsonString(value: unknown, repairs: string[]): unknown {
  let current = value
  for (let depth = 0; depth < 2 && typeof current === 'string'; depth++) {
    const trimmed = current.trim()
    if (!trimmed.startsWith('{') && !trimmed.startsWith('[') && !trimmed.startsWith('"')) break
    const parsed = tryJson(trimmed)
    if (parsed === undefined) break
    repairs.push('arguments stringified twice')
    current = parsed
  }
  return current
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

function asText(value: unknown): string {
  if (typeof value === 'string') return value
  return value === undefined || value === null ? '' : JSON.stringify(value)
}

function availableActions(tools: Map<string, AnyTool>): string {
  return `Available actions: ${[...tools.keys()].join(', ')}.`
}

/**
 * Collects one response as it streams and turns each new piece into deltas:
 * free text as it comes, and each reflection field's new characters as the
 * tool input grows.
 */
export class OutputAccumulator {
  text = ''
  rawInput = ''
  toolCall: RawModelOutput['toolCall']
  private readonly emitted: Record<ReflectionField, number> = {
    evaluation_previous_goal: 0,
    memory: 0,
    next_goal: 0,
  }

  addText(text: string): EventDraft[] {
    this.text += text
    return text ? [{ type: 'text_delta', field: 'text', text }] : []
  }

  addToolInput(delta: string): EventDraft[] {
    // A later call's input: only the first call runs, so only its reflection streams.
    if (this.toolCall) return []
    this.rawInput += delta
    const partial = parsePartialJson(this.rawInput)
    if (!isRecord(partial)) return []
    const deltas: EventDraft[] = []
    for (const field of reflectionFields) {
      const value = partial[field]
      if (typeof value !== 'string' || value.length <= this.emitted[field]) continue
      deltas.push({ type: 'text_delta', field, text: value.slice(this.emitted[field]) })
      this.emitted[field] = value.length
    }
    return deltas
  }

  /** The first call of a response runs, on every provider: a later one is dropped, not swapped in. */
  setToolCall(toolCall: NonNullable<RawModelOutput['toolCall']>) {
    this.toolCall ??= toolCall
  }

  raw(): RawModelOutput {
    return this.toolCall ? { text: this.text, toolCall: this.toolCall } : { text: this.text }
  }
}
