import type { EventDraft, Usage, usageSources } from '../events/events.ts'
import { addCost, addUsage } from '../events/usage.ts'
import { costOf } from '../model/prices.ts'
import type { AgentContext } from './run-context.ts'

/**
 * Adds one model call's tokens and cost to the run's totals, and returns the
 * `usage` event that reports both, so every call the run paid for is visible
 * on its own and the events add up to `done`.
 */
export function recordUsage(
  ctx: AgentContext,
  source: (typeof usageSources)[number],
  usage: Usage,
): EventDraft {
  const costUsd = costOf(usage, ctx.price)
  ctx.run.usage = addUsage(ctx.run.usage, usage)
  ctx.run.costUsd = addCost(ctx.run.costUsd, costUsd)
  return {
    type: 'usage',
    step: ctx.run.step,
    source,
    usage,
    costUsd,
    runUsage: ctx.run.usage,
    runCostUsd: ctx.run.costUsd,
  }
}
