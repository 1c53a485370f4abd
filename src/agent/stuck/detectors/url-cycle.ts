import { actionKey, normalizeUrl } from '../normalize.ts'
import type { StuckOptions } from '../options.ts'
import {
  arrivals,
  collapseRuns,
  type Detection,
  reachedNewState,
  stepAt,
  type Trace,
  transitions,
} from '../trace.ts'
import { shortUrl, summarizeActions } from './detail-text.ts'
import { shouldChangePage } from './expected-change.ts'

/**
 * URL cycle: the sequence of URLs (consecutive steps on one URL folded into
 * one) repeats with a period of urlCycleMinPeriod..urlCycleMaxPeriod: A-B-C-A-B-C.
 *
 * Returning through the same URLs is also how legitimate repetitive work looks
 * (create a contact, back to the list, create the next one), so the second
 * pass must also show no progress: it reached no page state not seen before,
 * or it repeated the first pass's actions exactly. As for oscillation, only
 * URL changes caused by the agent's actions count.
 */
export function detectUrlCycle(trace: Trace, options: StuckOptions): Detection | undefined {
  const pages = arrivals(trace)
  const runs = collapseRuns(pages, (page) => normalizeUrl(page.url, options))
  // The latest step must be the one that completed the cycle.
  if (runs.at(-1)?.first !== pages.length - 1) return undefined
  const all = transitions(trace)
  const isNew = reachedNewState(trace)
  const key = (index: number) => {
    const action = all[index]?.action
    return action ? actionKey(action, options) : '-'
  }

  for (let period = options.urlCycleMinPeriod; period <= options.urlCycleMaxPeriod; period++) {
    if (runs.length < 2 * period) continue
    const first = runs.slice(-2 * period, -period)
    const second = runs.slice(-period)
    const [firstHead] = first
    const [secondHead] = second
    if (!firstHead || !secondHead) continue
    if (!first.every((run, index) => run.key === second[index]?.key)) continue
    // Only the agent's own actions make a loop, not a page that redirects by itself while it waits.
    const changes = [...first.slice(1), ...second]
      .map((run) => all[run.first - 1])
      .filter((transition) => transition !== undefined)
    if (!changes.every((transition) => shouldChangePage(transition, options))) continue

    // Transition i leads from page i to page i + 1.
    const secondStart = secondHead.first
    const entering = Math.max(0, secondStart - 1)
    const secondPass = range(entering, all.length)
    const noProgress = secondPass.every((index) => !isNew[index])
    const firstInner = range(firstHead.first, secondStart - 1).map(key)
    const secondInner = range(secondStart, all.length).map(key)
    const sameActions =
      firstInner.length === secondInner.length && firstInner.every((k, i) => k === secondInner[i])
    if (!noProgress && !sameActions) continue

    const urls = first.map((run) => run.value.url)
    const cycle = [...first, ...second].map((run) => shortUrl(run.value.url, 60)).join(' → ')
    return {
      kind: 'url_cycle',
      since: stepAt(trace, firstHead.first),
      detail:
        `The URL sequence repeats with period ${period} (${cycle}), ` +
        `${noProgress ? 'reaching nothing new' : 'with the same actions'} on the second pass: ` +
        summarizeActions(all.slice(entering), (action) => actionKey(action, options)),
      urls: [...new Set(urls)],
    }
  }
  return undefined
}

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from) }, (_, index) => from + index)
}
