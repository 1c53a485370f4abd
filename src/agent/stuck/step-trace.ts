import type { Detection } from './detectors/index.ts'
import { detectLoops } from './detectors/index.ts'
import { liveTrace } from './live-trace.ts'
import type { MonitorState } from './monitor-state.ts'
import type { StuckOptions } from './options.ts'
import type { Trace, TracePage } from './trace.ts'
import type { StuckInput } from './types.ts'

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
