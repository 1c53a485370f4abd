import type { LanguageModel } from 'ai'
import {
  type RecoveryStrategyName,
  recoveryStrategies as recoveryEventStrategies,
} from '../../events/events.ts'
import { actionsThat } from '../tools/actions.ts'

/** A scripted recovery: every strategy a `recovery` event can name except the supervisor's review. */
export type RecoveryStrategy = Exclude<RecoveryStrategyName, 'supervisor'>

/** The scripted recoveries, in the order the escalation tries them by default. */
export const recoveryStrategies: readonly RecoveryStrategy[] = recoveryEventStrategies.filter(
  (strategy): strategy is RecoveryStrategy => strategy !== 'supervisor',
)

/** Every threshold of stuck detection and recovery. */
export interface StuckOptions {
  /** Consecutive actions that should have changed the page but left it unchanged (stall). */
  stallSteps: number
  /** Length of an A-B-A-B run of page fingerprints (oscillation); even, at least 4. */
  oscillationSteps: number
  /** Shortest and longest period of a repeating URL sequence (URL cycle). */
  urlCycleMinPeriod: number
  urlCycleMaxPeriod: number
  /** Occurrences of one action (similar input) since the run last reached a new page state. */
  repeatCount: number
  /** How many recent actions the repeated-action detector looks at. */
  repeatWindow: number
  /**
   * Query parameters and input fields whose values mark a different page of
   * results: inputs that differ in them are different actions, never repeats.
   */
  paginationKeys: string[]
  /** Query parameters that never matter when comparing URLs (tracking, cache busting). */
  ignoredQueryParams: string[]
  /** Tools that read the page without changing it: never a stall, never expected to change anything. */
  observationalTools: string[]
  /** Tools that wait: expected to leave the page unchanged while it is visibly loading. */
  waitTools: string[]
  /** Tells whether a page view shows a page still loading (spinner, progress bar, "Loading…"). */
  isLoading: (pageView: string) => boolean
  /** The run ends once failed actions exceed max(errorBudgetMin, ceil(maxTurns × errorBudgetFraction)). */
  errorBudgetMin: number
  errorBudgetFraction: number
  /** Recovery strategies, tried once each per stuck episode, in this order. */
  recoveries: RecoveryStrategy[]
  /** `pages` passed to `scroll` to reach the top of the page. */
  scrollTopPages: number
  /** Supervisor calls in a whole run (at most one per stuck episode); 0 skips the supervisor. */
  maxSupervisorCalls: number
  /** Stuck steps the agent may spend on the supervisor's new approach before the run ends. */
  supervisorGraceSteps: number
  /** Model for the supervisor; the run's model when absent. */
  supervisorModel?: LanguageModel
  /** Characters of the current page view shown to the supervisor. */
  supervisorPageViewChars: number
  /** Characters of each action result shown to the supervisor. */
  supervisorResultChars: number
  /** Steps without any stuck pattern after which a stuck episode is over and escalation starts afresh. */
  quietStepsToReset: number
  /** Stuck steps in a whole run after which it ends, whatever the escalation level. */
  maxStuckSteps: number
}

const loadingPatterns = [
  /\bprogressbar\b/i,
  /\[busy\]/i,
  /aria-busy/i,
  /\bloading\b/i,
  /please wait/i,
  /\bspinner\b/i,
  /\bbuffering\b/i,
]

/** A page is visibly loading when its view shows a progress bar, a busy region or a loading message. */
export function pageViewShowsLoading(pageView: string): boolean {
  return loadingPatterns.some((pattern) => pattern.test(pageView))
}

export const defaultStuckOptions: Readonly<StuckOptions> = Object.freeze({
  stallSteps: 3,
  oscillationSteps: 4,
  urlCycleMinPeriod: 2,
  urlCycleMaxPeriod: 4,
  repeatCount: 3,
  repeatWindow: 8,
  paginationKeys: ['page', 'p', 'pg', 'offset', 'cursor', 'next', 'start', 'from', 'after', 'before', 'skip'],
  ignoredQueryParams: [
    'utm_source',
    'utm_medium',
    'utm_campaign',
    'utm_term',
    'utm_content',
    'fbclid',
    'gclid',
    'dclid',
    'msclkid',
    'mc_cid',
    'mc_eid',
    '_ga',
    '_gl',
    '_',
  ],
  // Each action's descriptor says how it counts (agent/tools/actions.ts).
  observationalTools: actionsThat('observes'),
  waitTools: actionsThat('waits'),
  isLoading: pageViewShowsLoading,
  errorBudgetMin: 3,
  errorBudgetFraction: 1 / 3,
  recoveries: [...recoveryStrategies],
  // The scroll tool accepts at most 20 pages at a time.
  scrollTopPages: 20,
  maxSupervisorCalls: 2,
  supervisorGraceSteps: 2,
  supervisorPageViewChars: 8000,
  supervisorResultChars: 300,
  quietStepsToReset: 3,
  maxStuckSteps: 20,
})

export function resolveStuckOptions(options: Partial<StuckOptions> = {}): StuckOptions {
  const resolved: StuckOptions = { ...defaultStuckOptions, ...options }
  const positive: (keyof StuckOptions)[] = [
    'stallSteps',
    'repeatCount',
    'repeatWindow',
    'urlCycleMinPeriod',
    'urlCycleMaxPeriod',
    'quietStepsToReset',
    'maxStuckSteps',
  ]
  for (const key of positive) {
    const value = resolved[key]
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
      throw new RangeError(`Stuck option ${key} must be a positive integer, got ${String(value)}.`)
    }
  }
  if (resolved.oscillationSteps < 4 || resolved.oscillationSteps % 2 !== 0) {
    throw new RangeError(
      `Stuck option oscillationSteps must be an even number ≥ 4, got ${resolved.oscillationSteps}.`,
    )
  }
  if (resolved.urlCycleMinPeriod < 2 || resolved.urlCycleMaxPeriod < resolved.urlCycleMinPeriod) {
    throw new RangeError('Stuck options need 2 ≤ urlCycleMinPeriod ≤ urlCycleMaxPeriod.')
  }
  return resolved
}

/** Failed actions the run may have; one more ends it. */
export function errorBudget(
  maxTurns: number,
  options: Pick<StuckOptions, 'errorBudgetMin' | 'errorBudgetFraction'>,
) {
  return Math.max(options.errorBudgetMin, Math.ceil(maxTurns * options.errorBudgetFraction))
}
