import type { StuckKind } from '../../../events/events.ts'

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
