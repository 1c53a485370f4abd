import type { EventDraft, StuckKind } from '../../events/events.ts'
import type { Detection } from './detectors/index.ts'

export function stuckDetected(detection: Detection, step: number): EventDraft {
  return { type: 'stuck_detected', kind: detection.kind, step, detail: detection.detail }
}

/**
 * A stuck_detected event for each pattern that starts holding at this step;
 * when the same patterns merely persist, one event for the main one, so each
 * climb of the ladder is explained in the event stream.
 */
export function stuckEvents(
  detections: Detection[],
  previous: ReadonlySet<StuckKind>,
  step: number,
): EventDraft[] {
  const fresh = detections.filter((detection) => !previous.has(detection.kind))
  return (fresh.length > 0 ? fresh : detections.slice(0, 1)).map((detection) =>
    stuckDetected(detection, step),
  )
}
