import type { StuckKind } from '../../events/events.ts'
import type { Detection } from './detectors/index.ts'
import type { EscalationState } from './escalation.ts'
import { endText } from './messages.ts'
import type { TracePage } from './trace.ts'

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

/** The run's final result when the detector ends it: the patterns, since when, what was tried, and why it stops. */
export function finalText(state: MonitorState, detections: Detection[], why: string): string {
  return endText({
    detections,
    since: state.escalation.episode?.since,
    tried: state.escalation.episode?.log ?? [],
    why,
  })
}
