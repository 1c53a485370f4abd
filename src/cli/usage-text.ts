import type { Usage } from '../events/events.ts'

/** A cost for people: "$0.0123", "$1.24"; "cost unknown" when the model's price is not known. */
export function formatCost(costUsd: number | null | undefined): string {
  if (costUsd === null || costUsd === undefined) return 'cost unknown'
  if (costUsd === 0) return '$0'
  return costUsd < 0.1 ? `$${costUsd.toFixed(4)}` : `$${costUsd.toFixed(2)}`
}

/** "1234 in (800 cached) / 56 out tokens". */
export function formatTokens(usage: Usage): string {
  const cached = usage.cachedInputTokens ? ` (${usage.cachedInputTokens} cached)` : ''
  return `${usage.inputTokens} in${cached} / ${usage.outputTokens} out tokens`
}

/** "850 ms", "3.2 s", "2m 05s". */
export function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`
  const seconds = Math.round(ms / 1000)
  return `${Math.floor(seconds / 60)}m ${String(seconds % 60).padStart(2, '0')}s`
}
