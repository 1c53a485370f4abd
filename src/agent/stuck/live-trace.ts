import type { StepRecord } from '../run/step-record.ts'
import { detectLoops } from './detectors/detect-all.ts'
import type { MonitorState } from './monitor-state.ts'
import type { StuckOptions } from './options.ts'
import type { StuckInput } from './stuck-detector.ts'
import type { Detection, Trace, TracePage } from './trace.ts'

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

/** Remembers the page as it is at the start of this step: the real outcome of the previous action. */
export function recordPage(input: StuckInput, state: MonitorState, config: StuckOptions): TracePage {
  const { url, fingerprint, pageView } = input.observation
  const page = { url, fingerprint, loading: config.isLoading(pageView) }
  state.observedAt.set(input.step, page)
  return page
}

/** The run's trace up to this step, and the loop patterns that hold in it. */
export function traceLoops(
  input: StuckInput,
  page: TracePage,
  state: MonitorState,
  config: StuckOptions,
): { trace: Trace; detections: Detection[] } {
  const trace = liveTrace(input.history, { ...page, step: input.step }, state.observedAt)
  return { trace, detections: detectLoops(trace, config) }
}
