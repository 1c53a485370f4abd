import { callEvents } from './call-events.ts'
import { liveView } from './live-view.ts'
import { noteEvents } from './note-events.ts'
import { replyEvents } from './reply-events.ts'
import { runFiles } from './run-files.ts'
import { runHeader } from './run-header.ts'
import { runTimeline } from './run-timeline.ts'
import { stepEvents } from './step-events.ts'
import { takeoverControls } from './takeover-controls.ts'

/**
 * The pieces of the run page's script, each a self-contained function served
 * as its source text: assets.ts hands them to `runPage` as this object, and
 * `runPage` is typed against it, so the wiring is checked like any call.
 */
export const runPageParts = {
  runHeader,
  runFiles,
  runTimeline,
  liveView,
  stepEvents,
  callEvents,
  replyEvents,
  noteEvents,
  takeoverControls,
}

export type RunPageParts = typeof runPageParts
