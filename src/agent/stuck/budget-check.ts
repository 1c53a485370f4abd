import { detectErrorBudget } from './detectors/index.ts'
import { errorBudgetWarning } from './messages.ts'
import type { MonitorState } from './monitor-state.ts'
import { errorBudget, type StuckOptions } from './options.ts'
import { stuckDetected } from './stuck-events.ts'
import type { StuckInput, StuckVerdict } from './types.ts'

/**
 * The run's error budget: over it, a verdict that ends the run; exactly at it,
 * one warning note (given once per run); otherwise nothing.
 */
export function checkErrorBudget(
  input: StuckInput,
  state: MonitorState,
  config: StuckOptions,
): { end: StuckVerdict } | { notes: string[] } {
  const budget = detectErrorBudget(input.failedActions, input.maxTurns, config, input.step)
  if (budget) {
    const text = `Stopped: ${budget.detail} Actions keep failing, so the run ends here rather than spend its remaining steps.`
    return { end: { events: [stuckDetected(budget, input.step)], notes: [], end: { text } } }
  }
  const limit = errorBudget(input.maxTurns, config)
  if (state.budgetWarned || input.failedActions !== limit) return { notes: [] }
  state.budgetWarned = true
  return { notes: [errorBudgetWarning(input.failedActions, limit + 1)] }
}
