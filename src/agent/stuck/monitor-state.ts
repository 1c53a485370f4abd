import type { EventDraft, StuckKind } from '../../events/events.ts'
import type { EscalationState } from './escalation.ts'
import { endText } from './messages.ts'
import type { StuckOptions } from './options.ts'
import type { StuckInput } from './stuck-detector.ts'
import type { Detection, TracePage } from './trace.ts'

/** What one run's stuck detector remembers between steps. */
export interface MonitorState {
  escalation: EscalationState
  /** Patterns that held at the previous step, so only new ones get their own event. */
  liveKinds: ReadonlySet<StuckKind>
  /** The last step judged: a re-observation in the same step is not judged again. */
  lastStep: number
  /** The one warning before the error budget runs out was given. */
  budgetWarned: boolean
  /** The supervisor's approach in the current episode, repeated in reminders. */
  approach: string | undefined
  /** The page seen at the start of each step, before any recovery changed it. */
  observedAt: Map<number, TracePage>
}

/** What carrying out one rung of the ladder needs: the step, the run's state, and what holds now. */
export interface Rung {
  input: StuckInput
  state: MonitorState
  config: StuckOptions
  detections: Detection[]
  /** The main pattern; a rung is only climbed while at least one holds. */
  primary: Detection
  /** stuck_detected events of this step, to which the rung adds its own. */
  events: EventDraft[]
  /** Notes of this step so far (the error budget warning). */
  notes: string[]
}

/** The run's final result when the detector ends it: the patterns, since when, what was tried, and why it stops. */
export function finalText(state: MonitorState, detections: Detection[], why: string): string {
  return endText({
    detections,
    since: state.escalation.episode?.since,
    tried: state.escalation.episode?.log ?? [],
    why,
  })
}
