import { errorBudget, type StuckOptions } from '../options.ts'
import type { Detection } from '../trace.ts'

/** Error budget: more failed actions than max(errorBudgetMin, ceil(maxTurns × errorBudgetFraction)). */
export function detectErrorBudget(
  failedActions: number,
  maxTurns: number,
  options: Pick<StuckOptions, 'errorBudgetMin' | 'errorBudgetFraction'>,
  step: number,
): Detection | undefined {
  const budget = errorBudget(maxTurns, options)
  if (failedActions <= budget) return undefined
  return {
    kind: 'error_budget',
    since: step,
    detail: `${failedActions} actions have failed, more than the run's budget of ${budget} failed actions.`,
    urls: [],
  }
}
