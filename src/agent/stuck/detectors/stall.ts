import { actionKey } from '../normalize.ts'
import type { StuckOptions } from '../options.ts'
import { type Detection, type Trace, type Transition, transitions } from '../trace.ts'
import { shortUrl, summarizeActions } from './detail-text.ts'
import { shouldChangePage } from './expected-change.ts'

/**
 * Stall: the page (view and URL) stayed the same after the last `stallSteps`
 * actions that should have changed it. Reading actions (find, read_page) and
 * waits on a visibly loading page neither count nor break the run; any change
 * of the page does break it. The latest action must be one of the stalled
 * ones, so a stall is reported only while the agent keeps at it.
 */
export function detectStall(trace: Trace, options: StuckOptions): Detection | undefined {
  const all = transitions(trace)
  const stalled: Transition[] = []
  for (const [index, transition] of [...all.entries()].reverse()) {
    const changed = transition.before.fingerprint !== transition.after.fingerprint
    if (changed) break
    if (shouldChangePage(transition, options)) stalled.push(transition)
    else if (index === all.length - 1) return undefined
  }
  // Collected newest first: the oldest stalled action is the last one.
  const first = stalled.at(-1)
  if (!first || stalled.length < options.stallSteps) return undefined
  stalled.reverse()
  const url = trace.current.url
  return {
    kind: 'stall',
    since: first.step,
    detail:
      `The page (${shortUrl(url)}) has not changed after the last ${stalled.length} actions that should have changed it: ` +
      summarizeActions(stalled, (action) => actionKey(action, options)),
    urls: [url],
  }
}
