import type { AgentContext } from '../run-context.ts'

/** What each child of one dispatch may spend, or why there is too little left to dispatch. */
export type ChildBudget =
  | { ok: true; maxTurns: number; maxSessionTokens?: number }
  | { ok: false; reason: string }

/**
 * Carves equal shares out of what the parent has left. The parent keeps one
 * turn (to answer after its children) and, when it has a token budget, one
 * share of the tokens; children in sequence get the same shares as children
 * in parallel, so the order never changes what a child may spend.
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
  if (ctx.maxSessionTokens === undefined) return { ok: true, maxTurns }
  const tokensLeft = ctx.maxSessionTokens - ctx.run.usage.totalTokens
  const maxSessionTokens = Math.floor(tokensLeft / (children + 1))
  if (maxSessionTokens < 1) {
    return {
      ok: false,
      reason: `Too few tokens remain (${tokensLeft}) to share among ${children} sub-tasks.`,
    }
  }
  return { ok: true, maxTurns, maxSessionTokens }
}
