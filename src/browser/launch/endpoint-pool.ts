import type { Logger } from '../../log.ts'
import { isAbortError } from '../../tool.ts'
import { describeError } from '../../util/describe-error.ts'
import type { BrowserSessionFactory } from '../browser-session.ts'
import type { BrowserPool } from './launcher.ts'

/** A remote browser: a Playwright browser server (ws) or a DevTools endpoint (cdp). */
export interface BrowserEndpoint {
  kind: 'ws' | 'cdp'
  url: string
}

export interface EndpointHealth {
  url: string
  /** False while it is left out after a failure. */
  healthy: boolean
  liveSessions: number
  /** Sessions it failed to open, since start. */
  failures: number
}

export interface EndpointPoolOptions {
  endpoints: readonly BrowserEndpoint[]
  /** The pool (one browser, a context per run) of one endpoint. */
  open: (endpoint: BrowserEndpoint) => BrowserPool
  /** How long an endpoint that failed is left out (default 30 s). */
  cooldownMs?: number
  logger: Logger
  now?: () => number
}

export class NoBrowserEndpointError extends Error {
  override name = 'NoBrowserEndpointError'
}

interface Slot {
  endpoint: BrowserEndpoint
  pool: BrowserPool
  downUntil: number
  failures: number
}

/**
 * Many browser endpoints as one pool: each run goes to the endpoint with the
 * fewest live sessions. An endpoint that fails to open a session is left out
 * for a while, and the run is opened on the next one, before its first step.
 * When every endpoint is left out, they are tried anyway, soonest back first:
 * a run is refused only when none answers.
 */
export function createEndpointPool(options: EndpointPoolOptions): BrowserPool & {
  health(): EndpointHealth[]
} {
  const now = options.now ?? Date.now
  const cooldownMs = options.cooldownMs ?? 30_000
  const slots: Slot[] = options.endpoints.map((endpoint) => ({
    endpoint,
    pool: options.open(endpoint),
    downUntil: 0,
    failures: 0,
  }))

  /** Healthy ones first, least loaded first; then the ones left out, soonest back first. */
  const inOrder = (): Slot[] => {
    const at = now()
    return [...slots].sort((a, b) => {
      const aDown = a.downUntil > at
      const bDown = b.downUntil > at
      if (aDown !== bDown) return aDown ? 1 : -1
      if (aDown) return a.downUntil - b.downUntil
      return a.pool.liveSessions() - b.pool.liveSessions()
    })
  }

  const leaveOut = (slot: Slot, error: unknown) => {
    slot.failures++
    slot.downUntil = now() + cooldownMs
    options.logger.warn(
      { err: error, endpoint: slot.endpoint.url, cooldownMs },
      'a browser endpoint failed; leaving it out for a while',
    )
  }

  const newSession: BrowserSessionFactory = async (sessionOptions, signal) => {
    let lastError: unknown
    for (const slot of inOrder()) {
      try {
        return await slot.pool.newSession(sessionOptions, signal)
      } catch (error) {
        if (signal.aborted || isAbortError(error)) throw error
        leaveOut(slot, error)
        lastError = error
      }
    }
    throw new NoBrowserEndpointError(
      `None of the ${slots.length} browser endpoints could open a session; the last said: ${describeError(lastError)}`,
    )
  }

  return {
    newSession,
    warm: async () => {
      const results = await Promise.allSettled(slots.map((slot) => slot.pool.warm()))
      for (const [index, result] of results.entries()) {
        const slot = slots[index]
        if (slot && result.status === 'rejected') leaveOut(slot, result.reason)
      }
      if (results.every((result) => result.status === 'rejected')) {
        throw new NoBrowserEndpointError('No browser endpoint answered.')
      }
    },
    close: async () => {
      await Promise.all(slots.map((slot) => slot.pool.close()))
    },
    liveSessions: () => slots.reduce((sum, slot) => sum + slot.pool.liveSessions(), 0),
    health: () => {
      const at = now()
      return slots.map((slot) => ({
        url: slot.endpoint.url,
        healthy: slot.downUntil <= at,
        liveSessions: slot.pool.liveSessions(),
        failures: slot.failures,
      }))
    },
  }
}
