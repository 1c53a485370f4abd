import type { LanguageModelV4StreamPart } from '@ai-sdk/provider'
import { APICallError } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'

/**
 * A language model that answers from a script, through the AI SDK's own mock
 * (ai/test): each model call takes the next response. Only the model is fake;
 * the agent runs exactly as it would against a provider.
 */

export type ScriptedResponse =
  | {
      /** The AgentOutput input; a string is sent verbatim (for malformed output). */
      output?: unknown
      /** Call this tool name instead of AgentOutput. */
      toolName?: string
      /** Free text before the tool call (or instead of it when no output is given). */
      text?: string
      /** Characters per tool-input delta (default: 12). */
      chunkSize?: number
      /** Delay before each part, in ms. */
      delayMs?: number
      /** Never finish: the stream stays open after its parts until the request is aborted. */
      hang?: boolean
      /** Tokens reported at the end; `cached` of the input were read from the provider's cache. */
      usage?: { input: number; output: number; cached?: number }
    }
  | { error: { status?: number; message?: string; headers?: Record<string, string>; network?: boolean } }

export interface ScriptedModel extends MockLanguageModelV4 {
  /** The user prompts the model received, in order. */
  prompts(): string[]
  remaining(): number
}

export function agentOutput(action: Record<string, unknown>, memory = '', next_goal = '') {
  return { evaluation_previous_goal: 'Unknown', memory, next_goal, action }
}

/** A response decided from the prompt the model received (e.g. to pick a ref from the page view). */
export type ScriptedStep = ScriptedResponse | ((prompt: string) => ScriptedResponse)

export function scriptedModel(
  script: ScriptedStep[],
  continuation: { afterScript?: ScriptedStep } = {},
): ScriptedModel {
  const queue = [...script]
  const model = new MockLanguageModelV4({
    provider: 'scripted',
    modelId: 'test',
    doStream: async (options) => {
      // `afterScript` answers every call once the script is spent (a model driven by the page alone).
      const step = queue.shift() ?? continuation.afterScript
      if (!step) throw new Error('The scripted model has no more responses.')
      const response = typeof step === 'function' ? step(promptText(options.prompt)) : step
      if ('error' in response) throw toError(response.error)
      return { stream: toStream(response, options.abortSignal) }
    },
  }) as ScriptedModel
  model.prompts = () => model.doStreamCalls.map((call) => JSON.stringify(call.prompt))
  model.remaining = () => queue.length
  return model
}

function toError(error: {
  status?: number
  message?: string
  headers?: Record<string, string>
  network?: boolean
}) {
  if (error.network) {
    return Object.assign(new TypeError('fetch failed'), {
      cause: Object.assign(new Error('reset'), { code: 'ECONNRESET' }),
    })
  }
  return new APICallError({
    message: error.message ?? `HTTP ${error.status}`,
    url: 'http://model.test/v1/chat/completions',
    requestBodyValues: {},
    statusCode: error.status ?? 500,
    ...(error.headers ? { responseHeaders: error.headers } : {}),
  })
}

function toStream(
  response: Exclude<ScriptedResponse, { error: unknown }>,
  signal: AbortSignal | undefined,
): ReadableStream<LanguageModelV4StreamPart> {
  const parts: LanguageModelV4StreamPart[] = [{ type: 'stream-start', warnings: [] }]
  if (response.text) {
    parts.push({ type: 'text-start', id: 't1' })
    for (const piece of chunks(response.text, 8)) parts.push({ type: 'text-delta', id: 't1', delta: piece })
    parts.push({ type: 'text-end', id: 't1' })
  }
  if (response.output !== undefined) {
    const toolName = response.toolName ?? 'AgentOutput'
    const input = typeof response.output === 'string' ? response.output : JSON.stringify(response.output)
    parts.push({ type: 'tool-input-start', id: 'c1', toolName })
    for (const piece of chunks(input, response.chunkSize ?? 12)) {
      parts.push({ type: 'tool-input-delta', id: 'c1', delta: piece })
    }
    parts.push({ type: 'tool-input-end', id: 'c1' })
    parts.push({ type: 'tool-call', toolCallId: 'c1', toolName, input })
  }
  const usage = response.usage ?? { input: 100, output: 20 }
  if (!response.hang) {
    parts.push({
      type: 'finish',
      finishReason: { unified: response.output !== undefined ? 'tool-calls' : 'stop', raw: undefined },
      usage: {
        inputTokens: {
          total: usage.input,
          noCache: usage.input - (usage.cached ?? 0),
          cacheRead: usage.cached,
          cacheWrite: undefined,
        },
        outputTokens: { total: usage.output, text: usage.output, reasoning: undefined },
      },
    })
  }
  let index = 0
  let timer: ReturnType<typeof setTimeout> | undefined
  return new ReadableStream<LanguageModelV4StreamPart>({
    async pull(controller) {
      if (signal?.aborted) {
        controller.error(signal.reason)
        return
      }
      if (index >= parts.length) {
        if (!response.hang) controller.close()
        else
          await new Promise<void>((resolve) =>
            signal?.addEventListener('abort', () => resolve(), { once: true }),
          )
        if (response.hang) controller.error(new DOMException('aborted', 'AbortError'))
        return
      }
      if (response.delayMs) {
        await new Promise<void>((resolve) => {
          timer = setTimeout(resolve, response.delayMs)
          signal?.addEventListener(
            'abort',
            () => {
              clearTimeout(timer)
              resolve()
            },
            { once: true },
          )
        })
      }
      controller.enqueue(parts[index++]!)
    },
    cancel() {
      clearTimeout(timer)
    },
  })
}

function chunks(text: string, size: number): string[] {
  const pieces: string[] = []
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size))
  return pieces
}

/** The text of every message in a prompt, as the model would read it. */
function promptText(prompt: unknown): string {
  if (!Array.isArray(prompt)) return String(prompt)
  return prompt
    .map((message: { content: unknown }) =>
      typeof message.content === 'string'
        ? message.content
        : Array.isArray(message.content)
          ? message.content.map((part: { text?: string }) => part.text ?? '').join('')
          : '',
    )
    .join('\n')
}

/** The stable ref of the first page-view line with this role and name. */
export function refOf(prompt: string, role: string, name: string): string {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const match = new RegExp(`${role} "${escaped}"[^\\n]*\\[ref=([^\\]]+)\\]`).exec(prompt)
  if (!match?.[1]) throw new Error(`No ${role} "${name}" in the page view:\n${prompt.slice(-2000)}`)
  return match[1]
}
