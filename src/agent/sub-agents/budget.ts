import type { AgentContext } from '../run/run-context.ts'

/** What each child of one dispatch may spend, or why there is too little left to dispatch. */
export type ChildBudget =
  | { ok: true; maxTurns: number; maxSessionTokens?: number; maxCostUsd?: number }
  | { ok: false; reason: string }

/**
 * Carves equal shares out of what the parent has left. The parent keeps one
 * turn (to answer after its children) and, when it has a token or dollar
 * budget, one share of it; children in sequence get the same shares as
 * children in parallel, so the order never changes what a child may spend.
 * (What they spent is added to the parent's own totals when they end.)
 */
export function carveChildBudget(ctx: AgentContext, children: number): ChildBudget {
  const turnsLeft = ctx.maxTurns - ctx.run.step - 1
  const maxTurns = Math.floor(turnsLeft / children)
  if (maxTurns < 1) {
    return {
      ok: false,
      reason: `${children} sub-tasks need at least ${children} steps and ${Math.max(0, turnsLeft)} remain (one is kept for your answer). Dispatch fewer tasks or do the work yourself.`,
    }
  }
  let budget: ChildBudget & { ok: true } = { ok: true, maxTurns }
  if (ctx.maxSessionTokens !== undefined) {
    const tokensLeft = ctx.maxSessionTokens - ctx.run.usage.totalTokens
    const maxSessionTokens = Math.floor(tokensLeft / (children + 1))
    if (maxSessionTokens < 1)
      return {
        ok: false,
        reason: `Too few tokens remain (${tokensLeft}) to share among ${children} sub-tasks.`,
      }
    budget = { ...budget, maxSessionTokens }
  }
  if (ctx.maxCostUsd !== undefined) {
    const dollarsLeft = ctx.maxCostUsd - (ctx.run.costUsd ?? 0)
    const maxCostUsd = dollarsLeft / (children + 1)
    if (maxCostUsd <= 0)
      return {
        ok: false,
        reason: `Too little budget remains ($${dollarsLeft.toFixed(4)}) to share among ${children} sub-tasks.`,
      }
    budget = { ...budget, maxCostUsd }
  }
  return budget
}
