import type { StuckKind } from '../../events/events.ts'
import { detectAll } from './detectors/detect-all.ts'
import type { StuckOptions } from './options.ts'
import type { Detection, Trace, TracePage, TraceStep } from './trace.ts'

/** A run recorded as a trace (bench/traces/*.json), labelled with the pattern it shows. */
export interface RecordedTrace {
  name: string
  description: string
  task: string
  maxTurns: number
  /** The stuck pattern the run shows, or null for a run making legitimate progress. */
  pattern: StuckKind | null
  /** The step at which the pattern is complete (labelled by hand), when `pattern` is set. */
  completeAt?: number
  steps: (TraceStep & { goal?: string })[]
  /** The page observed after the last step. */
  final: TracePage
}

export interface StepDetections {
  step: number
  detections: Detection[]
}

/**
 * Runs the detectors at every step of a recorded run as the live detector
 * would have: at step k they see steps 1..k-1 and the page observed at k.
 */
export function detectEachStep(recorded: RecordedTrace, options: StuckOptions): StepDetections[] {
  const { steps } = recorded
  const results: StepDetections[] = []
  for (const [index, last] of steps.entries()) {
    const done = index + 1
    const next = steps[done]
    const current = next
      ? { url: next.url, fingerprint: next.fingerprint, loading: next.loading, step: next.step }
      : { ...recorded.final, step: last.step + 1 }
    const trace: Trace = { steps: steps.slice(0, done), current }
    results.push({
      step: current.step,
      detections: detectAll(trace, options, { maxTurns: recorded.maxTurns }),
    })
  }
  return results
}

/** The first step at which each kind fired. */
export function firstDetections(perStep: StepDetections[]): Map<StuckKind, number> {
  const first = new Map<StuckKind, number>()
  for (const { step, detections } of perStep) {
    for (const detection of detections) if (!first.has(detection.kind)) first.set(detection.kind, step)
  }
  return first
}
