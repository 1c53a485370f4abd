import { createAnthropic } from '@ai-sdk/anthropic'
import { createGoogleGenerativeAI } from '@ai-sdk/google'
import { createOpenAI } from '@ai-sdk/openai'
import { type LanguageModel, wrapLanguageModel } from 'ai'
import type { Config } from '../config.ts'
import { ModelConfigError } from './model-errors.ts'
import { compatibleProviderName, type ModelWire, requestForm } from './request-forms.ts'

/** Where models come from: the config's model settings. */
export interface ModelSettings {
  /** Used when a run names no model (SEXTANT_MODEL). */
  defaultModel?: string
  /** An OpenAI-compatible Chat Completions endpoint (SEXTANT_BASE_URL). */
  baseUrl?: string
  /** Bearer key (SEXTANT_API_KEY or OPENAI_API_KEY). */
  apiKey?: string
  /** ANTHROPIC_API_KEY, and SEXTANT_ANTHROPIC_BASE_URL for a gateway. */
  anthropicApiKey?: string
  anthropicBaseUrl?: string
  /** GOOGLE_GENERATIVE_AI_API_KEY, and SEXTANT_GOOGLE_BASE_URL for a gateway. */
  googleApiKey?: string
  googleBaseUrl?: string
  /** The Responses API's `store` (SEXTANT_OPENAI_STORE); unset: false. */
  openaiStore?: boolean
}

type ModelConfig = Pick<
  Config,
  | 'model'
  | 'baseUrl'
  | 'apiKey'
  | 'anthropicApiKey'
  | 'anthropicBaseUrl'
  | 'googleApiKey'
  | 'googleBaseUrl'
  | 'openaiStore'
>

/** The model settings of a loaded config. */
export function modelSettingsFrom(config: ModelConfig): ModelSettings {
  const settings: ModelSettings = {}
  if (config.model !== undefined) settings.defaultModel = config.model
  if (config.baseUrl !== undefined) settings.baseUrl = config.baseUrl
  if (config.apiKey !== undefined) settings.apiKey = config.apiKey
  if (config.anthropicApiKey !== undefined) settings.anthropicApiKey = config.anthropicApiKey
  if (config.anthropicBaseUrl !== undefined) settings.anthropicBaseUrl = config.anthropicBaseUrl
  if (config.googleApiKey !== undefined) settings.googleApiKey = config.googleApiKey
  if (config.googleBaseUrl !== undefined) settings.googleBaseUrl = config.googleBaseUrl
  if (config.openaiStore !== undefined) settings.openaiStore = config.openaiStore
  return settings
}

export interface ResolvedModel {
  /** The name as given, e.g. "openai/gpt-4.1-mini"; reported in run_started. */
  name: string
  provider: string
  modelId: string
  model: LanguageModel
}

interface NativeProvider {
  wire: ModelWire
  /** The variables that hold its key, for the message when none is set. */
  keyNames: string
  /** Its own address setting, and the API it speaks there; only for providers SEXTANT_BASE_URL does not serve. */
  ownBaseUrl?: { name: string; api: string }
  key: (settings: ModelSettings) => string | undefined
  create: (modelId: string, apiKey: string, settings: ModelSettings) => LanguageModel
}

/**
 * Providers reachable without SEXTANT_BASE_URL, each through the AI SDK's own
 * provider, so that its native features (Anthropic's and Gemini's prompt
 * caching, cached-token counts) are used.
 */
const providers: Record<string, NativeProvider> = {
  openai: {
    wire: 'openai-responses',
    keyNames: 'SEXTANT_API_KEY or OPENAI_API_KEY',
    key: (settings) => settings.apiKey,
    create: (modelId, apiKey) => createOpenAI({ apiKey })(modelId),
  },
  anthropic: {
    wire: 'anthropic',
    keyNames: 'ANTHROPIC_API_KEY',
    ownBaseUrl: { name: 'SEXTANT_ANTHROPIC_BASE_URL', api: "Anthropic's Messages API" },
    key: (settings) => settings.anthropicApiKey,
    create: (modelId, apiKey, settings) =>
      createAnthropic({
        apiKey,
        ...(settings.anthropicBaseUrl === undefined ? {} : { baseURL: settings.anthropicBaseUrl }),
      })(modelId),
  },
  google: {
    wire: 'google',
    keyNames: 'GOOGLE_GENERATIVE_AI_API_KEY',
    ownBaseUrl: { name: 'SEXTANT_GOOGLE_BASE_URL', api: "Google's Generative Language API" },
    key: (settings) => settings.googleApiKey,
    create: (modelId, apiKey, settings) =>
      createGoogleGenerativeAI({
        apiKey,
        ...(settings.googleBaseUrl === undefined ? {} : { baseURL: settings.googleBaseUrl }),
      })(modelId),
  },
}

/**
 * Turns "provider/model" into an AI SDK language model. With a base URL an
 * `openai/…` model, and any prefix but a native provider's (it only labels the
 * model), goes to that endpoint's Chat Completions API, with or without a key.
 * `anthropic/…` and `google/…` always go through their own provider, at their
 * own base URL setting: the OpenAI-compatible wire would drop their prompt
 * caching, and an OpenAI-compatible server does not speak their APIs. Throws
 * ModelConfigError with a message that says what to set.
 */
export function resolveModel(requested: string | undefined, settings: ModelSettings): ResolvedModel {
  const name = (requested ?? settings.defaultModel)?.trim()
  if (!name) {
    throw new ModelConfigError(
      'no_model',
      'No model configured. Set SEXTANT_MODEL (e.g. "openai/gpt-4.1-mini"), pass --model, or give "model" in the request.',
    )
  }
  const slash = name.indexOf('/')
  const provider = slash > 0 ? name.slice(0, slash) : ''
  const modelId = slash > 0 ? name.slice(slash + 1).trim() : name

  if (settings.baseUrl && !nativeProvider(provider)?.ownBaseUrl) {
    if (!modelId) throw badName(name)
    const model = withRequestForm(compatibleModel(modelId, settings), 'chat-completions', modelId, settings)
    return { name, provider: provider || 'compatible', modelId, model }
  }

  if (!provider || !modelId) throw badName(name)
  const native = nativeProvider(provider)
  if (!native) {
    throw new ModelConfigError(
      'unknown_provider',
      `Unknown model provider "${provider}" in "${name}". Known providers: ${Object.keys(providers).join(', ')}. ` +
        'For any other OpenAI-compatible server (Ollama, vLLM, LM Studio, llama.cpp, a gateway), set SEXTANT_BASE_URL.',
    )
  }
  const apiKey = native.key(settings)
  if (!apiKey) {
    const own = settings.baseUrl ? native.ownBaseUrl : undefined
    throw new ModelConfigError(
      'missing_key',
      own
        ? `Model "${name}" is reached through ${own.api}, with its prompt caching, never through ` +
            `SEXTANT_BASE_URL (an OpenAI-compatible endpoint): set ${native.keyNames} (and ` +
            `${own.name} for a gateway that speaks that API), or name the model "openai/${modelId}" ` +
            'to send it to SEXTANT_BASE_URL over the OpenAI-compatible API, without that caching.'
        : `Model "${name}" needs an API key: set ${native.keyNames}.`,
    )
  }
  const model = withRequestForm(native.create(modelId, apiKey, settings), native.wire, modelId, settings)
  return { name, provider, modelId, model }
}

/** Every call through this model is sent in its wire's form (src/model/request-forms.ts). */
function withRequestForm(
  model: LanguageModel,
  wire: ModelWire,
  modelId: string,
  settings: ModelSettings,
): LanguageModel {
  // The providers above always return model objects; a string would name a gateway model.
  if (typeof model === 'string') return model
  const options = {
    wire,
    modelId,
    ...(settings.openaiStore === undefined ? {} : { openaiStore: settings.openaiStore }),
  }
  return wrapLanguageModel({ model, middleware: requestForm(options) })
}

/** Own keys only: a prefix such as `constructor/…` must not find Object's own members. */
function nativeProvider(provider: string): NativeProvider | undefined {
  return Object.hasOwn(providers, provider) ? providers[provider] : undefined
}

function badName(name: string): ModelConfigError {
  return new ModelConfigError(
    'bad_model_name',
    `Model "${name}" is not of the form "provider/model", e.g. "openai/gpt-4.1-mini".`,
  )
}

/** A Chat Completions model at the configured base URL; local servers often need no key. */
function compatibleModel(modelId: string, settings: ModelSettings): LanguageModel {
  const apiKey = settings.apiKey
  const provider = createOpenAI({
    baseURL: settings.baseUrl,
    // The SDK insists on a key; without one, the Authorization header is removed below.
    apiKey: apiKey ?? 'unused',
    name: compatibleProviderName,
    ...(apiKey ? {} : { fetch: withoutAuthorization }),
  })
  return provider.chat(modelId)
}

function withoutAuthorization(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const headers = new Headers(init?.headers)
  headers.delete('authorization')
  return fetch(input, { ...init, headers })
}
