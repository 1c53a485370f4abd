import {
  jsonSchema,
  type LanguageModel,
  NoSuchToolError,
  streamText,
  ToolChoiceViolationError,
  tool,
} from 'ai'
import { toUsage } from '../../events/usage.ts'
import { finishOutcome } from '../../model/finish-reasons.ts'
import { toCachedMessages } from '../prompt/cache-messages.ts'
import type { ModelPrompt, ModelStream, ModelStreamPart } from '../run/run-state.ts'

export const agentOutputToolName = 'AgentOutput'

/**
 * Starts one model request whose only tool is AgentOutput, forced, and adapts
 * the AI SDK's stream into the few parts the streaming state consumes.
 * The SDK's own retries are off: the loop retries with its own policy so that
 * Retry-After is honoured and every attempt is visible as an event.
 */
export function startModelStream(
  model: LanguageModel,
  prompt: ModelPrompt,
  outputJsonSchema: Record<string, unknown>,
  signal: AbortSignal,
  /** Replaces the run's secret values by their placeholders: the last check before text leaves for the model. */
  scrub: (text: string) => string = (text) => text,
): ModelStream {
  const requestController = new AbortController()
  const onRunAbort = () => requestController.abort(signal.reason)
  signal.addEventListener('abort', onRunAbort, { once: true })

  const result = streamText({
    model,
    ...toCachedMessages(scrubPrompt(prompt, scrub)),
    tools: {
      [agentOutputToolName]: tool({
        description: 'Report your reflection and the one action to take next.',
        // No validation here: the agent validates and repairs the input itself, so
        // malformed output reaches it instead of vanishing inside the SDK.
        inputSchema: jsonSchema(outputJsonSchema),
      }),
    },
    // Each API's own form of "this tool, once" is chosen in src/model/request-forms.ts.
    toolChoice: { type: 'tool', toolName: agentOutputToolName },
    maxRetries: 0,
    abortSignal: requestController.signal,
    // Errors arrive as stream parts and are classified by the loop; the SDK's
    // default handler would print them to the console.
    onError: () => {},
  })

  const parts = adaptParts(result.stream as AsyncIterable<SdkPart>)
  let finished = false
  const release = () => {
    finished = true
    signal.removeEventListener('abort', onRunAbort)
  }
  return {
    async next() {
      if (finished) return { done: true, value: undefined }
      const item = await parts.next()
      if (item.done) release()
      return item
    },
    cancel() {
      if (finished) return
      release()
      requestController.abort()
      void parts.return(undefined).catch(() => {})
    },
  }
}

/** The subset of the SDK's TextStreamPart the agent reads; every other part is skipped. */
type SdkPart =
  | { type: 'text-delta'; text: string }
  | { type: 'tool-input-delta'; delta: string }
  | { type: 'tool-call'; toolName: string; input: unknown; invalid?: boolean }
  | { type: 'finish'; totalUsage: Parameters<typeof toUsage>[0] }
  | { type: 'finish-step'; finishReason: string; rawFinishReason?: string; providerMetadata?: unknown }
  | { type: 'error'; error: unknown }
  | { type: 'abort' }
  | { type: string }

async function* adaptParts(stream: AsyncIterable<SdkPart>): AsyncGenerator<ModelStreamPart, void, undefined> {
  let rawInput = ''
  // A forced tool that was not called turns the step's finish reason into 'error';
  // the violation keeps the provider's own, which is what says why.
  let violatedFinishReason: string | undefined
  for await (const part of stream) {
    switch (part.type) {
      case 'text-delta':
        yield { type: 'text', text: (part as { text: string }).text }
        break
      case 'tool-input-delta': {
        const delta = (part as { delta: string }).delta
        rawInput += delta
        yield { type: 'tool-input', delta }
        break
      }
      case 'tool-call': {
        const call = part as { toolName: string; input: unknown }
        yield { type: 'tool-call', toolName: call.toolName, input: call.input, rawInput }
        rawInput = ''
        break
      }
      case 'finish-step': {
        const step = part as { finishReason: string; rawFinishReason?: string; providerMetadata?: unknown }
        const outcome = finishOutcome({
          finishReason: violatedFinishReason ?? step.finishReason,
          rawFinishReason: step.rawFinishReason,
          providerMetadata: step.providerMetadata,
        })
        if (outcome) yield { type: 'outcome', outcome }
        break
      }
      case 'finish':
        yield {
          type: 'finish',
          usage: toUsage((part as { totalUsage: Parameters<typeof toUsage>[0] }).totalUsage),
        }
        break
      case 'error': {
        const error = (part as { error: unknown }).error
        // A response without the forced tool call is malformed output, not a failed
        // request: the agent repairs it from the text, or shows the model its mistake.
        if (ToolChoiceViolationError.isInstance(error)) {
          violatedFinishReason = error.finishReason
          break
        }
        if (NoSuchToolError.isInstance(error)) break
        yield { type: 'error', error }
        break
      }
      default:
        break
    }
  }
}

/** Every text of the prompt with the run's secret values replaced: the last check before it leaves. */
function scrubPrompt(prompt: ModelPrompt, scrub: (text: string) => string): ModelPrompt {
  return {
    ...prompt,
    system: scrub(prompt.system),
    stable: prompt.stable.map(scrub),
    volatile: scrub(prompt.volatile),
  }
}
