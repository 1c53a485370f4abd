import type { Usage } from './events.ts'

/** No tokens yet. Frozen because it is shared: copy it (`{ ...zeroUsage }`) to get a usage of your own. */
export const zeroUsage: Readonly<Usage> = Object.freeze({ inputTokens: 0, outputTokens: 0, totalTokens: 0 })

/** The AI SDK's usage, whose fields may be undefined when a provider omits them. */
export interface SdkUsage {
  inputTokens?: number | undefined
  outputTokens?: number | undefined
  totalTokens?: number | undefined
}

export function toUsage(usage: SdkUsage | undefined): Usage {
  const inputTokens = usage?.inputTokens ?? 0
  const outputTokens = usage?.outputTokens ?? 0
  return { inputTokens, outputTokens, totalTokens: usage?.totalTokens ?? inputTokens + outputTokens }
}

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  }
}
