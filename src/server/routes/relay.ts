import { createHmac, timingSafeEqual } from 'node:crypto'
import type { MiddlewareHandler } from 'hono'
import { isMetadataHost } from '../../util/addresses.ts'
import { describeError } from '../../util/describe-error.ts'
import { ApiError } from '../http/api-errors.ts'
import type { AppEnv } from '../http/app-env.ts'
import { readBoundedBody } from '../http/request-body.ts'
import type { LiveRun } from '../runs/live-run.ts'

/** The header a relayed request carries: the fleet's relay secret, proving it comes from another server. */
export const relayHeader = 'x-sextant-relay'

/** How long the owner gets to answer a relayed request's headers before the route says it is gone. */
const ownerAnswerMs = 5_000

/** Headers of the client's request the owner needs; the rest (Host, hop-by-hop) are the relay's own. */
const forwardedHeaders = ['authorization', 'content-type', 'accept', 'last-event-id']

export interface RelayOptions {
  /** The proof a relayed request carries; undefined: this server neither relays nor accepts relays. */
  secret: string | undefined
  liveRun(id: string): LiveRun | undefined
  /** The internal address of the server running the run; undefined when none runs it (or the store is not shared). */
  ownerUrl(id: string): Promise<string | undefined>
  /** This server's own internal address: a run recorded under it is not relayed (it was this process's before a restart). */
  selfUrl(): string | undefined
  /** The route's own bound on a body, the one its handler reads with (0: it reads none, and none is relayed). */
  maxBodyBytes: number
}

/** The relay secret of a fleet: SEXTANT_RELAY_SECRET, else one derived from the API token; none without either. */
export function relaySecretOf(config: { relaySecret?: string | undefined; apiToken?: string | undefined }) {
  if (config.relaySecret !== undefined) return config.relaySecret
  if (config.apiToken === undefined) return undefined
  return createHmac('sha256', config.apiToken).update('sextant relay').digest('hex')
}

/**
 * Routes that need the run's own process (its browser: live frames,
 * takeover, input), asked on a server that does not run it, are relayed to
 * the server that does, found by the internal address kept with its lease.
 * The answer is streamed back as it comes; the request's body is read no
 * further than the route's own bound (413 before the owner is asked, and
 * before more than the bound is held). A relayed request is handled
 * where it lands, never relayed again, and only with the fleet's secret.
 * An owner that does not answer, or answers that it does not run the run, is
 * said to be gone (503 owner_unreachable), not waited for.
 */
export function relayToOwner(options: RelayOptions): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const proof = c.req.header(relayHeader)
    const id = c.req.param('id') ?? ''
    if (proof !== undefined) {
      if (!hasRelayProof(proof, options.secret)) {
        throw new ApiError(
          403,
          'forbidden',
          'A relayed request needs the fleet’s relay secret (SEXTANT_RELAY_SECRET).',
        )
      }
      // Relayed here because the store records this address as the run's owner; a process here that does not
      // run it is not that owner (it restarted, or the address is another server's now, as pod addresses are
      // reused): the owner is gone, which the route's own "not running" would hide.
      if (!options.liveRun(id))
        throw new ApiError(
          503,
          'owner_unreachable',
          `Run ${id} is not run by the server at ${options.selfUrl() ?? 'the address recorded for it'} any more: its owner is gone. The run is ended once its lease lapses; try again then.`,
          { 'Retry-After': '5' },
        )
      return next()
    }
    if (options.secret === undefined || options.liveRun(id)) return next()
    const owner = await options.ownerUrl(id)
    if (owner === undefined || owner === options.selfUrl()) return next()
    const refused = ownerRefusal(owner)
    if (refused) throw new ApiError(503, 'owner_unreachable', `Run ${id} is not relayed: ${refused}`)
    c.set('runId', id)
    const target = new URL(c.req.path, owner)
    target.search = new URL(c.req.url).search
    const headers = new Headers({ [relayHeader]: options.secret })
    for (const name of forwardedHeaders) {
      const value = c.req.header(name)
      if (value !== undefined) headers.set(name, value)
    }
    const body = options.maxBodyBytes > 0 ? await readBoundedBody(c.req.raw, options.maxBodyBytes) : undefined
    // The answer's headers within ownerAnswerMs; its body (a stream of frames) for as long as the client stays.
    const answered = new AbortController()
    const timer = setTimeout(() => answered.abort(), ownerAnswerMs)
    let response: Response
    try {
      response = await fetch(target, {
        method: c.req.method,
        headers,
        ...(body === undefined ? {} : { body }),
        signal: AbortSignal.any([answered.signal, c.req.raw.signal]),
        redirect: 'manual',
      })
    } catch (error) {
      throw new ApiError(
        503,
        'owner_unreachable',
        `Run ${id} is run by the server at ${owner}, which does not answer (${answered.signal.aborted ? `no answer in ${ownerAnswerMs / 1000} s` : describeError(error)}). If it is gone, the run is ended once its lease lapses; try again then.`,
        { 'Retry-After': '5' },
      )
    } finally {
      clearTimeout(timer)
    }
    const answer = new Headers(response.headers)
    // fetch decoded the body already; the length and encoding were the owner's.
    answer.delete('content-encoding')
    answer.delete('content-length')
    return new Response(response.body, { status: response.status, headers: answer })
  }
}

/**
 * Why the address a run's owner is recorded under is never relayed to, or
 * undefined: a relay carries the fleet's secret and the caller's token, and
 * the cloud metadata service, in any spelling, is no server of the fleet.
 * Loopback and private addresses are (servers of a fleet talk inside).
 */
export function ownerRefusal(owner: string): string | undefined {
  let host: string
  try {
    host = new URL(owner).hostname
  } catch {
    return `its owner's address ${JSON.stringify(owner.slice(0, 200))} is not a URL.`
  }
  return isMetadataHost(host) ? `its owner's address ${owner} is a cloud metadata address.` : undefined
}

/** Whether a request carries the fleet's relay secret: it comes from another server of the fleet. */
export function hasRelayProof(proof: string | undefined, secret: string | undefined): boolean {
  return proof !== undefined && secret !== undefined && sameText(proof, secret)
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}
