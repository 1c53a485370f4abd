import { failed, isAbortError, type ToolResult } from '../../tool.ts'
import { describeError } from '../../util/describe-error.ts'
import { shortUrl } from './detectors/detail-text.ts'
import { normalizeUrl } from './normalize.ts'
import type { RecoveryStrategy, StuckOptions } from './options.ts'
import { arrivals, reachedNewState, type Trace, transitions } from './trace.ts'

/** One recovery strategy made concrete: the tool call, and how to say what it does. */
export interface RecoveryPlan {
  strategy: RecoveryStrategy
  tool: string
  input: unknown
  /** What the recovery tries to do, to follow "tried to": "scroll to the top of the page". */
  description: string
}

/**
 * The URL of the latest page the run reached as a new state, outside the
 * pages the current loop keeps it on; the run's first page when nothing
 * later qualifies. Undefined when every candidate is part of the loop.
 */
export function lastProgressUrl(
  trace: Trace,
  loopUrls: string[],
  options: Pick<StuckOptions, 'ignoredQueryParams' | 'paginationKeys'>,
): string | undefined {
  const excluded = new Set([...loopUrls, trace.current.url].map((url) => normalizeUrl(url, options)))
  const qualifies = (url: string) => /^https?:\/\//i.test(url) && !excluded.has(normalizeUrl(url, options))
  const all = transitions(trace)
  const isNew = reachedNewState(trace)
  for (const [index, transition] of [...all.entries()].reverse()) {
    const url = transition.after.url
    if (isNew[index] && qualifies(url)) return url
  }
  const start = arrivals(trace)[0]?.url
  return start !== undefined && qualifies(start) ? start : undefined
}

export function planRecovery(
  strategy: RecoveryStrategy,
  context: { progressUrl?: string },
  options: Pick<StuckOptions, 'scrollTopPages'>,
): RecoveryPlan | undefined {
  switch (strategy) {
    case 'scroll_top':
      return {
        strategy,
        tool: 'scroll',
        input: { direction: 'up', pages: options.scrollTopPages },
        description: 'scroll to the top of the page',
      }
    case 'escape':
      return {
        strategy,
        tool: 'press_key',
        input: { key: 'Escape' },
        description: 'press Escape to close any dialog, menu or overlay',
      }
    case 'reload':
      return { strategy, tool: 'reload', input: {}, description: 'reload the page' }
    case 'navigate_last_progress':
      if (context.progressUrl === undefined) return undefined
      return {
        strategy,
        tool: 'navigate',
        input: { url: context.progressUrl },
        description: `navigate to ${shortUrl(context.progressUrl)}, the last page where the run made progress`,
      }
    default: {
      const unknown: never = strategy
      throw new Error(`Unknown recovery strategy ${String(unknown)}`)
    }
  }
}

/** Runs a recovery's tool call. A tool that throws is a failed recovery, except when the run is aborted. */
export async function runRecovery(
  plan: RecoveryPlan,
  runTool: (name: string, input: unknown) => Promise<ToolResult>,
  signal: AbortSignal,
): Promise<ToolResult> {
  try {
    return await runTool(plan.tool, plan.input)
  } catch (error) {
    if (isAbortError(error) || signal.aborted) throw error
    return failed(describeError(error))
  }
}
