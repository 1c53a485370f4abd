import type { BrowserSession, SessionState } from '../../browser/browser-session.ts'
import type { EventDraft } from '../../events/events.ts'
import type { Logger } from '../../log.ts'
import { isAbortError } from '../../tool.ts'
import { describeError } from '../../util/describe-error.ts'
import {
  anyRuleMatches,
  canonicalHost,
  effectivePort,
  type HostRule,
  parseHostRules,
} from '../../util/host-rules.ts'
import { ProfileTooLargeError } from '../../util/profile-size.ts'
import type { ProfileSave } from './profile-save.ts'
import type { RunOptions } from './run-options.ts'
import type { AgentState } from './run-state.ts'

/** The run's profile could not be read (a wrong key, an altered or unreadable store): the run cannot start as asked. */
export class ProfileLoadError extends Error {
  override name = 'ProfileLoadError'
}

/** One run's profile: what it started from (kept for the merge of its save), and its save. */
export interface RunProfile {
  /** The profile's state for this run (only sites it may reach); loaded once, at the first browser's opening. */
  load(): Promise<SessionState | undefined>
  /** Saves the browser's state when `ended` calls for it; a failure is a warning, never the run's outcome. */
  save(browser: BrowserSession, ended: AgentState): Promise<EventDraft[]>
}

export function runProfile(options: RunOptions, runId: string, log: Logger): RunProfile | undefined {
  const { profile: name, profiles } = options
  if (name === undefined) return undefined
  if (!profiles)
    throw new TypeError(`The run names profile "${name}" but was given no profile store (profiles).`)
  const when = options.profileSave ?? 'success'
  let loaded: Promise<SessionState | undefined> | undefined
  const load = () => {
    loaded ??= profiles.load(name).then(
      (state) => state && reachableState(state, options.allowedDomains),
      (error: unknown) => {
        if (isAbortError(error)) throw error
        throw new ProfileLoadError(`The run could not load its profile: ${describeError(error)}`, {
          cause: error,
        })
      },
    )
    return loaded
  }
  return {
    load,
    save: async (browser, ended) => {
      if (!shouldSave(when, ended)) return []
      try {
        if (!browser.storageState)
          throw new Error('this browser session cannot report its cookies and storage')
        const base = (await load()) ?? { cookies: [], origins: [] }
        await profiles.save(name, await browser.storageState(), { base, runId })
        return []
      } catch (error) {
        if (error instanceof ProfileTooLargeError) {
          const message = `Profile "${name}" was not saved: it would hold ${error.size.toLocaleString('en-US')} bytes, more than the limit of ${error.limit.toLocaleString('en-US')} bytes (SEXTANT_MAX_PROFILE_BYTES). The profile as it was before this run is kept.`
          log.warn({ runId, size: error.size, limit: error.limit }, message)
          return [{ type: 'warning', code: 'profile_too_large', message }]
        }
        const message = `Profile "${name}" was not saved: ${describeError(error)}`
        log.warn({ runId }, message)
        return [{ type: 'warning', code: 'profile_not_saved', message }]
      }
    },
  }
}

function shouldSave(when: ProfileSave, ended: AgentState): boolean {
  if (when === 'never') return false
  if (when === 'always') return true
  return ended.type === 'done' && ended.reason === 'model_stop' && ended.result.success
}

/**
 * The part of a profile a run may use: with `allowedDomains`, only cookies the
 * browser would send to a host it may reach, and only origins it may reach, so
 * a profile's login to another site never enters the run.
 */
export function reachableState(state: SessionState, allowedDomains: string[] | undefined): SessionState {
  if (!allowedDomains) return state
  const rules = parseHostRules(allowedDomains)
  return {
    cookies: state.cookies.filter((cookie) => cookieReachable(cookie.domain, rules)),
    origins: state.origins.filter((origin) => originReachable(origin.origin, rules)),
  }
}

/**
 * A cookie is sent to its host (host-only) or, with a leading dot, to that
 * domain and its subdomains; cookies know no port, so a rule's port is ignored.
 */
function cookieReachable(domain: string, rules: HostRule[]): boolean {
  const host = canonicalHost(domain.replace(/^\./, ''))
  if (!host) return false
  const domainCookie = domain.startsWith('.')
  return rules.some(
    (rule) =>
      rule.host === host ||
      (rule.wildcard && host.endsWith(`.${rule.host}`)) ||
      (domainCookie && rule.host.endsWith(`.${host}`)),
  )
}

function originReachable(origin: string, rules: HostRule[]): boolean {
  try {
    const url = new URL(origin)
    const host = canonicalHost(url.hostname)
    return host !== undefined && anyRuleMatches(rules, host, effectivePort(url))
  } catch {
    return false
  }
}
