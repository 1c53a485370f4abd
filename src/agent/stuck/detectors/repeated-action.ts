import { actionKey, describeAction, quote } from '../normalize.ts'
import type { StuckOptions } from '../options.ts'
import { type Detection, reachedNewState, type Trace, transitions } from '../trace.ts'
import { isLoadingWait } from './expected-change.ts'

/**
 * Repeated action: the same action (inputs compared in canonical form, see
 * normalize.ts) taken `repeatCount` times within the last `repeatWindow`
 * actions without the run reaching any new page state in between. Paging,
 * scrolling and "add another" reach a new state each time, so they restart the
 * count; inputs that differ in pagination values are different actions anyway.
 * The latest action must be the repeated one.
 */
export function detectRepeatedAction(trace: Trace, options: StuckOptions): Detection | undefined {
  const all = transitions(trace)
  const isNew = reachedNewState(trace)
  const from = Math.max(0, all.length - options.repeatWindow)
  const counts = new Map<string, { count: number; since: number; results: string[] }>()
  let lastKey: string | undefined
  for (const [index, transition] of all.entries()) {
    if (index < from) continue
    // Progress: whatever was repeated before it led somewhere.
    if (isNew[index]) counts.clear()
    lastKey = undefined
    if (!transition.action || isLoadingWait(transition, options)) continue
    lastKey = actionKey(transition.action, options)
    const entry = counts.get(lastKey) ?? { count: 0, since: transition.step, results: [] }
    entry.count++
    if (transition.result) entry.results.push(transition.result.text)
    counts.set(lastKey, entry)
  }
  if (lastKey === undefined) return undefined
  const entry = counts.get(lastKey)
  if (!entry || entry.count < options.repeatCount) return undefined
  const last = all.at(-1)
  if (!last?.action) return undefined
  const results = [...new Set(entry.results)].slice(-2).map((text) => quote(text))
  return {
    kind: 'repeated_action',
    since: entry.since,
    detail:
      `The same action was taken ${entry.count} times without reaching anything new: ${describeAction(last.action)}` +
      (results.length > 0 ? `, with result ${results.join(' / ')}` : ''),
    urls: [last.before.url],
  }
}
