import { actionKey } from '../normalize.ts'
import type { StuckOptions } from '../options.ts'
import { arrivals, collapseRuns, type Detection, stepAt, type Trace, transitions } from '../trace.ts'
import { shortUrl, summarizeActions } from './detail-text.ts'
import { shouldChangePage } from './expected-change.ts'

/**
 * Oscillation: the page alternates between two states, A-B-A-B, over the last
 * `oscillationSteps` page changes (steps that left the page as it was, such as
 * reading it, are folded into the state they stayed on). Only changes caused
 * by the agent's own actions count, not a page that flips by itself while the
 * agent reads or waits for it to load.
 */
export function detectOscillation(trace: Trace, options: StuckOptions): Detection | undefined {
  const pages = arrivals(trace)
  const runs = collapseRuns(pages, (page) => page.fingerprint)
  const tail = runs.slice(-options.oscillationSteps)
  // The latest step must be one of the alternations.
  if (tail.length < options.oscillationSteps || tail.at(-1)?.first !== pages.length - 1) return undefined
  const [runA, runB] = tail
  if (!runA || !runB) return undefined
  const [a, b] = [runA.key, runB.key]
  if (!tail.every((run, index) => run.key === (index % 2 === 0 ? a : b))) return undefined

  const all = transitions(trace)
  // Transition i leads from page i to page i + 1: the changes are those entering each later run.
  const changes = tail
    .slice(1)
    .map((run) => all[run.first - 1])
    .filter((transition) => transition !== undefined)
  if (!changes.every((transition) => shouldChangePage(transition, options))) return undefined
  const pageA = runA.value
  const pageB = runB.value
  return {
    kind: 'oscillation',
    since: stepAt(trace, runA.first),
    detail:
      `The page keeps alternating between two states over the last ${options.oscillationSteps} page changes ` +
      `(${shortUrl(pageA.url)} and ${shortUrl(pageB.url)}${pageA.url === pageB.url ? ', two states of one URL' : ''}), ` +
      `via ${summarizeActions(changes, (action) => actionKey(action, options))}`,
    urls: [...new Set([pageA.url, pageB.url])],
  }
}
