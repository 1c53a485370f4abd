import type { LanguageModel, LanguageModelMiddleware } from 'ai'
import { strictOutputSchema } from './strict-schema.ts'

/**
 * Each API's form of what every Sextant call asks for: one forced tool call,
 * never several, and structured output that the API really enforces. The
 * agent asks once, in the SDK's own terms; this middleware turns that into
 * what each server reads, so no caller switches on the provider.
 */

/** The provider name of models at SEXTANT_BASE_URL: Chat Completions at a server Sextant knows nothing else of. */
export const compatibleProviderName = 'compatible'

/**
 * Whether the model's server may cut a prompt longer than its context window
 * without an error: local OpenAI-compatible servers do (Ollama drops messages
 * from the front); OpenAI, Anthropic and Gemini refuse such a request instead.
 */
export function mayCutPrompt(model: LanguageModel): boolean {
  return typeof model !== 'string' && model.provider === `${compatibleProviderName}.chat`
}

type CallOptions = Parameters<NonNullable<LanguageModelMiddleware['transformParams']>>[0]['params']

/** The wire a model is reached through. */
export type ModelWire = 'openai-responses' | 'chat-completions' | 'anthropic' | 'google'

export interface RequestFormOptions {
  wire: ModelWire
  modelId: string
  /** The Responses API's `store` (SEXTANT_OPENAI_STORE); default false: OpenAI keeps no step's page view or screenshot. */
  openaiStore?: boolean
}

export function requestForm(options: RequestFormOptions): LanguageModelMiddleware {
  return {
    specificationVersion: 'v4',
    transformParams: async ({ params }) => formFor(params, options),
    wrapGenerate: async ({ doGenerate, params, model }) => {
      const strict = strictFor(params, options.wire)
      if (!strict) return doGenerate()
      const result = await model.doGenerate(strict.params)
      return {
        ...result,
        content: result.content.map((part) =>
          part.type === 'text' ? { ...part, text: strict.restore(part.text) } : part,
        ),
      }
    },
  }
}

function formFor(params: CallOptions, options: RequestFormOptions): CallOptions {
  switch (options.wire) {
    case 'openai-responses':
      return withOptions(params, 'openai', { parallelToolCalls: false, store: options.openaiStore ?? false })
    case 'chat-completions':
      return withOptions(
        { ...params, ...requiredToolChoice(params) },
        'openai',
        // o-series reasoning models answer 400 to parallel_tool_calls on Chat Completions.
        takesParallelToolCalls(options.modelId) ? { parallelToolCalls: false } : {},
      )
    case 'anthropic':
      return withOptions(params, 'anthropic', { disableParallelToolUse: true })
    case 'google':
      // Gemini has no switch for parallel calls; the agent runs the first call it is given.
      return params
    default: {
      const unknownWire: never = options.wire
      throw new Error(`Unknown model wire ${String(unknownWire)}`)
    }
  }
}

/**
 * A forced call as the string `"required"`: llama.cpp's server reads tool_choice
 * only as a string (an object falls back to "auto"), vLLM and OpenAI enforce
 * "required" too, and Ollama ignores tool_choice whatever its form. With one
 * tool, "required" forces exactly that tool.
 */
function requiredToolChoice(params: CallOptions): Partial<CallOptions> {
  const tools = params.tools ?? []
  if (params.toolChoice?.type !== 'tool' || tools.length !== 1) return {}
  if (tools[0]?.name !== params.toolChoice.toolName) return {}
  return { toolChoice: { type: 'required' } }
}

/** Chat Completions' o-series reasoning models (o1, o3-mini, o4-mini…) refuse the flag; every other model takes it. */
export function takesParallelToolCalls(modelId: string): boolean {
  const id = modelId.slice(modelId.lastIndexOf('/') + 1)
  return !/^o\d/.test(id)
}

/** The caller's own provider options win over these defaults. */
function withOptions(params: CallOptions, provider: string, defaults: Record<string, unknown>): CallOptions {
  if (Object.keys(defaults).length === 0) return params
  const own = params.providerOptions?.[provider] ?? {}
  return {
    ...params,
    providerOptions: { ...params.providerOptions, [provider]: { ...defaults, ...own } as never },
  }
}

/**
 * OpenAI's strict JSON-schema mode (the SDK's default on both OpenAI APIs)
 * refuses a schema with an optional property or an open object. The caller's
 * schema is sent in its strict form (optional → required and nullable), and
 * the nulls that stand for an absent property are removed from the answer; a
 * schema that has no strict form is sent without strict.
 */
function strictFor(
  params: CallOptions,
  wire: ModelWire,
): { params: CallOptions; restore: (text: string) => string } | undefined {
  if (wire !== 'openai-responses' && wire !== 'chat-completions') return undefined
  const format = params.responseFormat
  if (format?.type !== 'json' || !format.schema) return undefined
  const strict = strictOutputSchema(format.schema as Record<string, unknown>)
  if (!strict) {
    return { params: withOptions(params, 'openai', { strictJsonSchema: false }), restore: (text) => text }
  }
  return {
    params: { ...params, responseFormat: { ...format, schema: strict.schema as never } },
    restore: (text) => {
      try {
        return JSON.stringify(strict.restore(JSON.parse(text)))
      } catch {
        return text // Not JSON: the SDK reports it as it would have.
      }
    },
  }
}
