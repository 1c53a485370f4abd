import type { EventDraft } from '../../events/events.ts'
import type { Detection } from './detectors/index.ts'
import type { MonitorState } from './monitor-state.ts'
import type { StuckOptions } from './options.ts'
import type { StuckInput } from './types.ts'

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
