import type { ModelMessage, SystemModelMessage, TextPart } from 'ai'
import type { ModelPrompt } from '../run/run-state.ts'

/** Anthropic caches a prompt's prefix up to a part marked so; other providers ignore the option. */
const cacheBreakpoint = { anthropic: { cacheControl: { type: 'ephemeral' } } } as const

/**
 * The step prompt as AI SDK messages, laid out for prompt caching: the system
 * prompt and each stable part are their own blocks, with a cache breakpoint
 * after the system prompt and after the last stable part. The next step's
 * prompt repeats every stable block and adds one, so the provider finds the
 * previous breakpoint among its blocks and serves that prefix from its cache
 * (Anthropic explicitly; OpenAI and Gemini cache byte-identical prefixes on
 * their own).
 */
export function toCachedMessages(prompt: ModelPrompt): {
  instructions: SystemModelMessage
  messages: ModelMessage[]
} {
  const stable: TextPart[] = prompt.stable.map((text, index) =>
    index === prompt.stable.length - 1
      ? { type: 'text', text, providerOptions: cacheBreakpoint }
      : { type: 'text', text },
  )
  return {
    instructions: { role: 'system', content: prompt.system, providerOptions: cacheBreakpoint },
    // With vision the step's screenshot comes last, after the page view it illustrates.
    messages: [
      {
        role: 'user',
        content: [
          ...stable,
          { type: 'text', text: prompt.volatile },
          ...(prompt.image
            ? [{ type: 'file' as const, data: prompt.image.data, mediaType: prompt.image.mediaType }]
            : []),
        ],
      },
    ],
  }
}

/** The prompt as one text, as the model reads it (the system prompt first). */
export function promptText(prompt: ModelPrompt): string {
  return `${prompt.system}\n\n${prompt.stable.join('')}${prompt.volatile}`
}
