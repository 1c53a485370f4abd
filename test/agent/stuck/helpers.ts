import type { Trace, TraceStep } from '../../../src/agent/stuck/trace.ts'

/** One synthetic step: the page it acted on (fingerprint, URL) and the action taken. */
export interface Step {
  fp: string
  url?: string
  tool?: string
  input?: unknown
  ok?: boolean
  text?: string
  loading?: boolean
  /** The page first observed at this step, when a recovery changed it before the action. */
  arrived?: { fp: string; url?: string }
}

export const urlOf = (fp: string) => `https://site.test/${fp.toLowerCase()}`

/** A trace from synthetic steps; the current page is the last argument. */
export function makeTrace(steps: Step[], current: { fp: string; url?: string; loading?: boolean }): Trace {
  const traceSteps: TraceStep[] = steps.map((step, index) => ({
    step: index + 1,
    url: step.url ?? urlOf(step.fp),
    fingerprint: step.fp,
    loading: step.loading ?? false,
    arrived: step.arrived
      ? { url: step.arrived.url ?? urlOf(step.arrived.fp), fingerprint: step.arrived.fp }
      : undefined,
    action: step.tool ? { tool: step.tool, input: step.input ?? {} } : undefined,
    result: step.tool ? { ok: step.ok ?? true, text: step.text ?? `Did ${step.tool}.` } : undefined,
  }))
  return {
    steps: traceSteps,
    current: {
      url: current.url ?? urlOf(current.fp),
      fingerprint: current.fp,
      loading: current.loading ?? false,
      step: steps.length + 1,
    },
  }
}

/** Every prefix of a run (steps 1..k-1 plus the page at step k), as the detector sees it step by step. */
export function prefixes(steps: Step[], final: { fp: string; url?: string; loading?: boolean }): Trace[] {
  return steps.map((_, index) => {
    const next = steps[index + 1]
    return makeTrace(
      steps.slice(0, index + 1),
      next ? { fp: next.fp, url: next.url, loading: next.loading } : final,
    )
  })
}

export const click = (ref: string, fp: string, extra: Partial<Step> = {}): Step => ({
  fp,
  tool: 'click',
  input: { ref },
  ...extra,
})
