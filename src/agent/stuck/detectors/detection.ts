import type { StuckKind } from '../../../events/events.ts'
import type { StuckOptions } from '../options.ts'
import type { Transition } from '../trace.ts'

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

/** Whether an action is one that should change the page (so an unchanged page after it means no effect). */
export function shouldChangePage(
  transition: Transition,
  options: Pick<StuckOptions, 'observationalTools' | 'waitTools'>,
): boolean {
  const tool = transition.action?.tool
  if (tool === undefined) return false
  if (options.observationalTools.includes(tool)) return false
  // Waiting on a page that is visibly loading is expected to show nothing new yet.
  if (options.waitTools.includes(tool) && transition.before.loading) return false
  return true
}

/** Waiting for a visibly loading page is legitimate, however often it happens. */
export function isLoadingWait(transition: Transition, options: Pick<StuckOptions, 'waitTools'>): boolean {
  return (
    transition.action !== undefined &&
    options.waitTools.includes(transition.action.tool) &&
    !!transition.before.loading
  )
}
