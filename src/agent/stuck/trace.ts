import type { StuckKind } from '../../events/events.ts'

/**
 * The detectors' view of a run: a plain, serializable trace of pages and
 * actions in, the patterns that hold out. Detectors are pure functions over
 * it, so recorded traces (bench/traces) and live runs go through the same code.
 */

export interface TracePage {
  url: string
  fingerprint: string
  /** The page was visibly loading when observed. */
  loading?: boolean
}

export interface TraceAction {
  tool: string
  input: unknown
}

export interface TraceStep extends TracePage {
  /** The page the model acted on at this step is `url`/`fingerprint`. */
  step: number
  /**
   * The page as first observed at this step, when a recovery changed it
   * before the model acted: the actual outcome of the previous action.
   */
  arrived?: TracePage
  action?: TraceAction
  result?: { ok: boolean; text: string }
}

export interface Trace {
  /** Completed steps, oldest first. */
  steps: TraceStep[]
  /** The page observed now, at the start of step `current.step`. */
  current: TracePage & { step: number }
}

/** A stuck pattern that holds at the current step. */
export interface Detection {
  kind: StuckKind
  /** The step the pattern started at. */
  since: number
  /** What the pattern is and what the agent has been repeating, for the event and the model. */
  detail: string
  /** URLs of the pages the pattern keeps the agent on. */
  urls: string[]
}

/** One action and what it did: the page it was taken on, and the page it led to. */
export interface Transition {
  step: number
  before: TracePage
  after: TracePage
  action?: TraceAction
  result?: { ok: boolean; text: string }
}

function page(value: TracePage): TracePage {
  return { url: value.url, fingerprint: value.fingerprint, loading: value.loading ?? false }
}

/** The page observed at the start of each step (before any recovery), then the current one. */
export function arrivals(trace: Trace): TracePage[] {
  return [...trace.steps.map((step) => page(step.arrived ?? step)), page(trace.current)]
}

export function transitions(trace: Trace): Transition[] {
  const pages = arrivals(trace)
  return trace.steps.map((step, index) => ({
    step: step.step,
    before: page(step),
    after: pages[index + 1] ?? page(trace.current),
    action: step.action,
    result: step.result,
  }))
}

/**
 * For each transition, whether it reached a page state the trace had not
 * seen before: the simplest sign of progress.
 */
export function reachedNewState(trace: Trace): boolean[] {
  const seen = new Set<string>()
  const pages = arrivals(trace)
  if (pages[0]) seen.add(pages[0].fingerprint)
  return transitions(trace).map((transition) => {
    seen.add(transition.before.fingerprint)
    const isNew = !seen.has(transition.after.fingerprint)
    seen.add(transition.after.fingerprint)
    return isNew
  })
}

export interface Run<T> {
  key: string
  /** The run's last value. */
  value: T
  /** Indexes of the run's first and last values. */
  first: number
  last: number
}

/** Collapses consecutive values with equal keys into runs. */
export function collapseRuns<T>(values: T[], key: (value: T) => string): Run<T>[] {
  const runs: Run<T>[] = []
  values.forEach((value, index) => {
    const k = key(value)
    const previous = runs.at(-1)
    if (previous && previous.key === k) {
      previous.last = index
      previous.value = value
    } else runs.push({ key: k, value, first: index, last: index })
  })
  return runs
}

/** The step number of the page at `index` in `arrivals(trace)`. */
export function stepAt(trace: Trace, index: number): number {
  return trace.steps[index]?.step ?? trace.current.step
}
