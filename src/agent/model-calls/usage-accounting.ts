import type { EventDraft, Usage, usageSources } from '../../events/events.ts'
import { addCost, addUsage } from '../../events/usage.ts'
import { costOf } from '../../model/prices.ts'
import type { AgentContext, RunRecord } from '../run/run-context.ts'

export interface UsageCharge {
  /** The `usage` event that reports the call's tokens and cost, and the run's totals after it. */
  event: EventDraft
  /** The run's new totals, for the handler's update. */
  totals: Pick<RunRecord, 'usage' | 'costUsd'>
}

/**
 * One model call's tokens and cost added to the run's totals, and the
 * `usage` event that reports both, so every call the run paid for is visible
 * on its own and the events add up to `done`. The step is the one the call
 * belongs to (a step that is beginning is not counted in the run yet).
 */
export function chargeUsage(
  ctx: AgentContext,
  charge: { source: (typeof usageSources)[number]; usage: Usage; step?: number },
): UsageCharge {
  const { source, usage } = charge
  const costUsd = costOf(usage, ctx.price)
  const totals = { usage: addUsage(ctx.run.usage, usage), costUsd: addCost(ctx.run.costUsd, costUsd) }
  const event: EventDraft = {
    type: 'usage',
    step: charge.step ?? ctx.run.step,
    source,
    usage,
    costUsd,
    runUsage: totals.usage,
    runCostUsd: totals.costUsd,
  }
  return { event, totals }
}
