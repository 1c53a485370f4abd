import type { StuckOptions } from '../options.ts'
import type { Detection, Trace } from '../trace.ts'
import { detectErrorBudget } from './error-budget.ts'
import { detectOscillation } from './oscillation.ts'
import { detectRepeatedAction } from './repeated-action.ts'
import { detectStall } from './stall.ts'
import { detectUrlCycle } from './url-cycle.ts'

/** The loop patterns that hold at the trace's current step, most telling first. */
export function detectLoops(trace: Trace, options: StuckOptions): Detection[] {
  return [
    detectOscillation(trace, options),
    detectUrlCycle(trace, options),
    detectStall(trace, options),
    detectRepeatedAction(trace, options),
  ].filter((detection) => detection !== undefined)
}

/** Failed actions in a trace, for traces that do not carry the run's own count. */
export function countFailures(trace: Trace): number {
  return trace.steps.filter((step) => step.result?.ok === false).length
}

/**
 * Every pattern at the trace's current step: the loops, and the error budget
 * when the run's failure count is given (or counted from the trace).
 */
export function detectAll(
  trace: Trace,
  options: StuckOptions,
  run: { maxTurns: number; failedActions?: number },
): Detection[] {
  const budget = detectErrorBudget(
    run.failedActions ?? countFailures(trace),
    run.maxTurns,
    options,
    trace.current.step,
  )
  return [...(budget ? [budget] : []), ...detectLoops(trace, options)]
}
