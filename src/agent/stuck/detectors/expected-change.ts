import type { StuckOptions } from '../options.ts'
import type { Transition } from '../trace.ts'

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
