import type { AgentEventOf, EventType } from '../../../events/events.ts'
import type { ViewerCommon } from './common.ts'
import type { RunHeader } from './run-header.ts'
import type { RunTimeline } from './run-timeline.ts'

/** What each group of event renderers works with: the shared helpers, the run's API path, its head and its timeline. */
export interface RunPage {
  common: ViewerCommon
  /** `/v1/runs/<id>` of the run on the page. */
  base: string
  header: RunHeader
  timeline: RunTimeline
}

/** How a group of event kinds is shown: one function per kind it handles, given that kind's event. */
export type EventRenderers = { [T in EventType]?: (event: AgentEventOf<T>) => void }
