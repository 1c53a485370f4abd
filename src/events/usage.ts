import type { Usage } from './events.ts'

/** No tokens yet. Frozen because it is shared: copy it (`{ ...zeroUsage }`) to get a usage of your own. */
export const zeroUsage: Readonly<Usage> = Object.freeze({ inputTokens: 0, outputTokens: 0, totalTokens: 0 })

/**
 * The AI SDK's usage, whose fields may be undefined when a provider omits them.
 * `inputTokens` counts every input token, cached or not; the details say how
 * many of them were read from or written to the provider's prompt cache.
 */
export interface SdkUsage {
  inputTokens?: number | undefined
  outputTokens?: number | undefined
  totalTokens?: number | undefined
  inputTokenDetails?: { cacheReadTokens?: number | undefined; cacheWriteTokens?: number | undefined }
  outputTokenDetails?: { reasoningTokens?: number | undefined }
}

export function toUsage(usage: SdkUsage | undefined): Usage {
  const inputTokens = usage?.inputTokens ?? 0
  const outputTokens = usage?.outputTokens ?? 0
  const cached = usage?.inputTokenDetails?.cacheReadTokens
  const cacheWrite = usage?.inputTokenDetails?.cacheWriteTokens
  const reasoning = usage?.outputTokenDetails?.reasoningTokens
  return {
    inputTokens,
    outputTokens,
    totalTokens: usage?.totalTokens ?? inputTokens + outputTokens,
    // Only what the provider reported: an absent count is unknown, not zero.
    ...(cached === undefined ? {} : { cachedInputTokens: cached }),
    ...(cacheWrite === undefined ? {} : { cacheWriteTokens: cacheWrite }),
    ...(reasoning === undefined ? {} : { reasoningTokens: reasoning }),
  }
}

const detailKeys = ['cachedInputTokens', 'cacheWriteTokens', 'reasoningTokens'] as const

export function addUsage(a: Usage, b: Usage): Usage {
  const sum: Usage = {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  }
  for (const key of detailKeys) {
    const left = a[key]
    const right = b[key]
    if (left !== undefined || right !== undefined) sum[key] = (left ?? 0) + (right ?? 0)
  }
  return sum
}

/** Adds two costs in USD: an unknown cost (null) makes the sum unknown, never a smaller number. */
export function addCost(a: number | null, b: number | null): number | null {
  return a === null || b === null ? null : a + b
}
