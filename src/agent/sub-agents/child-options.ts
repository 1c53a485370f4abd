import type { BrowserSession, BrowserSessionFactory } from '../../browser/browser-session.ts'
import type { RunOptions, SubAgentOptions } from '../run-options.ts'
import type { ChildSpec } from '../run-state.ts'

/** Whether a run with these options is offered dispatch_agent: enabled, and not yet at maxDepth. */
export function canDispatch(subAgents: SubAgentOptions | undefined): subAgents is SubAgentOptions {
  if (!subAgents || subAgents.max < 1) return false
  return (subAgents.depth ?? 0) < (subAgents.maxDepth ?? 1)
}

/**
 * A child's options: its own task and carved budget; everything that bounds
 * what a run may do (domains, network, secrets, policy, confirmation, tools,
 * event size) is the parent's, so a child can never do more than its parent.
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
    task: spec.task,
    model: parent.model,
    ...(parent.modelName === undefined ? {} : { modelName: parent.modelName }),
    ...(spec.startUrl === undefined ? {} : { startUrl: spec.startUrl }),
    maxTurns: spec.maxTurns,
    ...(spec.maxSessionTokens === undefined ? {} : { maxSessionTokens: spec.maxSessionTokens }),
    ...(parent.allowedDomains === undefined ? {} : { allowedDomains: parent.allowedDomains }),
    ...(parent.blockPrivateNetworks ? { blockPrivateNetworks: true } : {}),
    ...(parent.secrets === undefined ? {} : { secrets: parent.secrets }),
    ...(parent.maxEventBytes === undefined ? {} : { maxEventBytes: parent.maxEventBytes }),
    ...(parent.maxDownloadBytes === undefined ? {} : { maxDownloadBytes: parent.maxDownloadBytes }),
    ...(typeof browser === 'function' || browser === null ? { browser } : {}),
    ...(parent.tools === undefined ? {} : { tools: parent.tools }),
    ...(parent.policy === undefined ? {} : { policy: parent.policy }),
    ...(parent.confirm === undefined ? {} : { confirm: parent.confirm }),
    ...(parent.confirmationTimeoutMs === undefined
      ? {}
      : { confirmationTimeoutMs: parent.confirmationTimeoutMs }),
    signal,
    ...(parent.retry === undefined ? {} : { retry: parent.retry }),
    ...(parent.compaction === undefined ? {} : { compaction: parent.compaction }),
    ...(parent.stuck === undefined ? {} : { stuck: parent.stuck }),
    ...(parent.maxInvalidOutputs === undefined ? {} : { maxInvalidOutputs: parent.maxInvalidOutputs }),
    ...(parent.abortDeadlineMs === undefined ? {} : { abortDeadlineMs: parent.abortDeadlineMs }),
    ...(parent.instructions === undefined ? {} : { instructions: parent.instructions }),
    ...(parent.log === undefined ? {} : { log: parent.log }),
    ...(parent.now === undefined ? {} : { now: parent.now }),
    ...(subAgents === undefined ? {} : { subAgents: { ...subAgents, depth: (subAgents.depth ?? 0) + 1 } }),
  }
}

/** The child's browser factory, its context seeded with the parent's cookies and storage. */
function sharingLogin(parent: RunOptions, parentSession: BrowserSession): BrowserSessionFactory {
  return async (options, signal) => {
    const storageState = await parentSession.storageState?.()
    const seeded = storageState ? { ...options, storageState } : options
    if (typeof parent.browser === 'function') return parent.browser(seeded, signal)
    // Loaded on demand, as the loop loads it: a run on a caller's session may never load Playwright.
    const { openStandaloneSession } = await import('../../browser/session/launcher.ts')
    return openStandaloneSession(seeded, signal)
  }
}
