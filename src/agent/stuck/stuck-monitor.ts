import { AbortError } from '../../tool.ts'
import { checkErrorBudget } from './budget-check.ts'
import { initialEscalation, logAttempt } from './escalation.ts'
import { climbLadder } from './ladder-step.ts'
import { reminderNote, stuckNote } from './messages.ts'
import { finalText, type MonitorState } from './monitor-state.ts'
import { resolveStuckOptions, type StuckOptions } from './options.ts'
import { recoverRung } from './recovery-rung.ts'
import type { Rung } from './rung.ts'
import { recordPage, traceLoops } from './step-trace.ts'
import { stuckEvents } from './stuck-events.ts'
import { superviseRung } from './supervisor-rung.ts'
import type { StuckDetector, StuckInput, StuckVerdict } from './types.ts'

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
