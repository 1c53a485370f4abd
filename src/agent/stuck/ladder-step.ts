import type { Detection } from './detectors/index.ts'
import { type EscalationAction, escalate, logAttempt } from './escalation.ts'
import type { MonitorState } from './monitor-state.ts'
import type { StuckOptions } from './options.ts'
import { lastProgressUrl } from './recovery.ts'
import type { Trace } from './trace.ts'

/**
 * Climbs the escalation ladder one step (or lets it rest when no pattern
 * holds), logs the strategies passed over, and forgets the supervisor's
 * approach when the episode is over. Returns the rung's action, with the page
 * to return to when a navigate_last_progress recovery was found applicable.
 */
export function climbLadder(
  state: MonitorState,
  detections: Detection[],
  trace: Trace,
  step: number,
  config: StuckOptions,
): { action: EscalationAction; progressUrl: string | undefined } {
  let progressUrl: string | undefined
  const rung = escalate(
    state.escalation,
    {
      stuck: detections.length > 0,
      step,
      applicable: (strategy) => {
        if (strategy !== 'navigate_last_progress') return true
        progressUrl = lastProgressUrl(
          trace,
          detections.flatMap((detection) => detection.urls),
          config,
        )
        return progressUrl !== undefined
      },
    },
    config,
  )
  state.escalation = rung.state
  for (const strategy of rung.skipped) {
    state.escalation = logAttempt(
      state.escalation,
      `${strategy}: not applicable (no earlier page where the run made progress)`,
    )
  }
  if (!state.escalation.episode) state.approach = undefined
  return { action: rung.action, progressUrl }
}
