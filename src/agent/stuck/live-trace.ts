import type { StepRecord } from '../run-context.ts'
import type { Trace, TracePage } from './trace.ts'

/**
 * The trace of a live run: the loop's step records, plus the pages the
 * detector itself observed at the start of each step (before any recovery
 * changed them), which are the real outcomes of the previous actions.
 */
export function liveTrace(
  history: StepRecord[],
  current: TracePage & { step: number },
  observedAt: ReadonlyMap<number, TracePage>,
): Trace {
  const steps = history.map((record) => {
    const observed = observedAt.get(record.step)
    const samePage = observed !== undefined && observed.fingerprint === record.fingerprint
    return {
      step: record.step,
      url: record.url,
      fingerprint: record.fingerprint,
      // Whether the page the model acted on was loading is known only when it is the page observed.
      loading: samePage ? observed.loading : false,
      arrived: observed,
      action: record.action,
      result: record.result,
    }
  })
  return { steps, current }
}
