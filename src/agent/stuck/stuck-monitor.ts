import type { EventDraft, StuckKind } from '../../events/events.ts'
import { AbortError } from '../../tool.ts'
import { detectErrorBudget } from './detectors/error-budget.ts'
import { initialEscalation, logAttempt } from './escalation.ts'
import { recordPage, traceLoops } from './live-trace.ts'
import { errorBudgetWarning, reminderNote, stuckNote } from './messages.ts'
import { finalText, type MonitorState, type Rung } from './monitor-state.ts'
import { errorBudget, resolveStuckOptions, type StuckOptions } from './options.ts'
import { climbLadder, recoverRung, superviseRung } from './rungs.ts'
import type { StuckDetector, StuckInput, StuckVerdict } from './stuck-detector.ts'
import type { Detection } from './trace.ts'

/**
 * One run's stuck detector. Per step it checks the error budget, builds the
 * run's trace and runs the pure detectors, climbs the escalation ladder when a
 * pattern holds, and carries out the rung: a note, a recovery, the
 * supervisor, a reminder, or the end of the run.
 */
export function createStuckDetector(options: Partial<StuckOptions> = {}): StuckDetector {
  const config = resolveStuckOptions(options)
  const state: MonitorState = {
    escalation: initialEscalation,
    liveKinds: new Set(),
    lastStep: 0,
    budgetWarned: false,
    approach: undefined,
    observedAt: new Map(),
  }
  return { evaluate: (input) => evaluateStep(input, state, config) }
}

async function evaluateStep(
  input: StuckInput,
  state: MonitorState,
  config: StuckOptions,
): Promise<StuckVerdict> {
  if (input.signal.aborted) throw new AbortError()
  // Called again in the same step (after a recovery's re-observation): the step was already judged.
  if (input.step <= state.lastStep) return { events: [], notes: [] }
  state.lastStep = input.step
  const page = recordPage(input, state, config)

  const budget = checkErrorBudget(input, state, config)
  if ('end' in budget) return budget.end

  const { trace, detections } = traceLoops(input, page, state, config)
  const { action, progressUrl } = climbLadder(state, detections, trace, input.step, config)
  const events = stuckEvents(detections, state.liveKinds, input.step)
  state.liveKinds = new Set(detections.map((detection) => detection.kind))
  const [primary] = detections
  // Every rung but 'none' is climbed only while a pattern holds, so primary is there.
  if (action.type === 'none' || !primary) return { events, notes: budget.notes }
  const rung: Rung = { input, state, config, detections, primary, events, notes: budget.notes }

  switch (action.type) {
    case 'note':
      state.escalation = logAttempt(state.escalation, `told the agent it was stuck (step ${input.step})`)
      return { events, notes: [...rung.notes, stuckNote(detections)] }
    case 'recover':
      return recoverRung(rung, action.strategy, progressUrl)
    case 'supervise':
      return superviseRung(rung)
    case 'remind':
      return { events, notes: [...rung.notes, reminderNote(detections, state.approach)] }
    case 'end': {
      const why =
        action.why === 'ceiling'
          ? `It was stuck on ${state.escalation.stuckSteps} steps of the run, the most allowed.`
          : state.approach
            ? "Neither the recoveries nor the supervisor's new approach freed it."
            : 'The recoveries did not free it.'
      return { events, notes: rung.notes, end: { text: finalText(state, detections, why) } }
    }
    default: {
      const unknown: never = action
      throw new Error(`Unknown escalation action ${JSON.stringify(unknown)}`)
    }
  }
}

/**
 * The run's error budget: over it, a verdict that ends the run; exactly at it,
 * one warning note (given once per run); otherwise nothing.
 */
function checkErrorBudget(
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

function stuckDetected(detection: Detection, step: number): EventDraft {
  return { type: 'stuck_detected', kind: detection.kind, step, detail: detection.detail }
}

/**
 * A stuck_detected event for each pattern that starts holding at this step;
 * when the same patterns merely persist, one event for the main one, so each
 * climb of the ladder is explained in the event stream.
 */
function stuckEvents(detections: Detection[], previous: ReadonlySet<StuckKind>, step: number): EventDraft[] {
  const fresh = detections.filter((detection) => !previous.has(detection.kind))
  return (fresh.length > 0 ? fresh : detections.slice(0, 1)).map((detection) =>
    stuckDetected(detection, step),
  )
}
