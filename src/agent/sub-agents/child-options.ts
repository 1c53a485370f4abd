import type { BrowserSession, BrowserSessionFactory } from '../../browser/browser-session.ts'
import type { RunOptions, SubAgentOptions } from '../run/run-options.ts'
import type { ChildSpec } from '../run/run-state.ts'

/** Whether a run with these options is offered dispatch_agent: enabled, and not yet at maxDepth. */
export function canDispatch(subAgents: SubAgentOptions | undefined): subAgents is SubAgentOptions {
  if (!subAgents || subAgents.max < 1) return false
  return (subAgents.depth ?? 0) < (subAgents.maxDepth ?? 1)
}

/**
 * What a child run takes from its parent's options. A child is its parent's
 * run by default (limits, prices, pictures, callbacks, log): only what a child
 * must not share is overridden. The table names every option, so an option
 * added to RunOptions without deciding here fails typecheck.
 */
export const childInheritance = {
  // Its own: the sub-task, its start, its carved budget, its id, its signal.
  task: 'override',
  startUrl: 'override',
  maxTurns: 'override',
  maxSessionTokens: 'override',
  // A share of what the parent has left; no clock of its own: the parent's deadline aborts it through its signal.
  maxCostUsd: 'override',
  maxDurationMs: 'override',
  runId: 'override',
  signal: 'override',
  // A child is one more level down; it never replays its parent's recording.
  subAgents: 'override',
  replay: 'override',
  replayWaitMs: 'override',
  variables: 'override',
  // The caller's data comes from the parent's done; a child reports in text.
  output: 'override',
  // Its own browser context (see below); only the parent speaks to the user.
  browser: 'override',
  askUser: 'override',
  // One person hands over to the parent only: a child's page is not the one they watch.
  handover: 'override',
  // The caller watches the parent's page; a child's is its own.
  onBrowser: 'override',
  // The parent alone loads and saves its profile; a child shares its login through shareSession.
  profile: 'override',
  profileSave: 'override',
  profiles: 'override',
  // The caller is told of the parent's end only; its children report to it.
  webhook: 'override',
  // A child runs untraced: its events pass through its parent's trace, nested under the dispatching step.
  traceparent: 'override',
  tracer: 'override',
  model: 'inherit',
  modelName: 'inherit',
  allowedDomains: 'inherit',
  blockPrivateNetworks: 'inherit',
  proxy: 'inherit',
  secrets: 'inherit',
  maxEventBytes: 'inherit',
  maxDownloadBytes: 'inherit',
  downloads: 'inherit',
  // A child records what its parent asked for, in its own browser, kept under its own run id.
  artifacts: 'inherit',
  artifactStore: 'inherit',
  maxArtifactBytes: 'inherit',
  tools: 'inherit',
  policy: 'inherit',
  confirm: 'inherit',
  confirmationTimeoutMs: 'inherit',
  retry: 'inherit',
  compaction: 'inherit',
  stuck: 'inherit',
  maxInvalidOutputs: 'inherit',
  abortDeadlineMs: 'inherit',
  screenshots: 'inherit',
  vision: 'inherit',
  instructions: 'inherit',
  // A child browses as its parent does: the same device, locale, place and headers.
  browserContext: 'inherit',
  prices: 'inherit',
  log: 'inherit',
  now: 'inherit',
} as const satisfies Record<keyof RunOptions, 'inherit' | 'override'>

type InheritedKey = {
  [K in keyof RunOptions]-?: (typeof childInheritance)[K] extends 'inherit' ? K : never
}[keyof RunOptions]

/**
 * A child's options: its own task and carved budget; everything else is the
 * parent's (see childInheritance), so a child can never do more than its
 * parent, and its cost and pictures are reckoned as its parent's are.
 * The child gets its own browser context from the parent's factory; a parent
 * on a session it was handed (which cannot be split) has children launch
 * their own browser. Children never ask the user: only the parent speaks to them.
 * A child with `shareSession` starts from a copy of `parentSession`'s cookies
 * and storage, taken when its browser opens: it shares the login, not the tabs.
 */
export function childRunOptions(
  parent: RunOptions,
  spec: ChildSpec,
  signal: AbortSignal,
  parentSession?: BrowserSession,
): RunOptions {
  const subAgents = parent.subAgents
  const browser = spec.shareSession && parentSession ? sharingLogin(parent, parentSession) : parent.browser
  return {
    ...inherited(parent),
    task: spec.task,
    ...(spec.startUrl === undefined ? {} : { startUrl: spec.startUrl }),
    maxTurns: spec.maxTurns,
    ...(spec.maxSessionTokens === undefined ? {} : { maxSessionTokens: spec.maxSessionTokens }),
    ...(spec.maxCostUsd === undefined ? {} : { maxCostUsd: spec.maxCostUsd }),
    ...(typeof browser === 'function' || browser === null ? { browser } : {}),
    signal,
    ...(subAgents === undefined ? {} : { subAgents: { ...subAgents, depth: (subAgents.depth ?? 0) + 1 } }),
  }
}

function inherited(parent: RunOptions): Pick<RunOptions, InheritedKey> {
  const kept: Partial<Record<keyof RunOptions, unknown>> = {}
  for (const key of Object.keys(childInheritance) as (keyof RunOptions)[]) {
    if (childInheritance[key] === 'inherit' && parent[key] !== undefined) kept[key] = parent[key]
  }
  // Each kept value is the parent's own for that key: the pick of RunOptions this type names.
  return kept as Pick<RunOptions, InheritedKey>
}

/** The child's browser factory, its context seeded with the parent's cookies and storage. */
function sharingLogin(parent: RunOptions, parentSession: BrowserSession): BrowserSessionFactory {
  return async (options, signal) => {
    const storageState = await parentSession.storageState?.()
    const seeded = storageState ? { ...options, storageState } : options
    if (typeof parent.browser === 'function') return parent.browser(seeded, signal)
    // Loaded on demand, as the loop loads it: a run on a caller's session may never load Playwright.
    const { openStandaloneSession } = await import('../../browser/launch/launcher.ts')
    return openStandaloneSession(seeded, signal)
  }
}
