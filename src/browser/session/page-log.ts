import type { BrowserContext, Request, Response, WebError } from 'playwright-core'
import {
  type ConsoleEntry,
  isFailedRequest,
  type NetworkEntry,
  type PageLog as PageLogEntries,
} from '../../events/page-log.ts'
import { isAbortError } from '../../tool.ts'
import { withDeadline } from '../../util/deadline.ts'
import { canonicalHost, effectivePort, formatOrigin } from '../../util/host-rules.ts'
import { truncate } from '../../util/text.ts'
import { refusedHeader } from '../network/guard-proxy.ts'
import type { GuardRefusal } from '../network/session-guard.ts'
import { pageName } from '../view/page-name.ts'
import { consoleHookScript, takeConsole } from './console-hook.ts'

/**
 * The bounds of a run's page log, one entry each: how many entries each ring
 * keeps, how many a step's observation lists, how long a text or URL may be.
 * A page that logs without end costs the run these and no more.
 */
export const pageLogBounds = {
  /** Console errors, warnings and uncaught exceptions kept for `read_console`. */
  consoleEntries: 100,
  /** Failed and refused requests kept for `read_network { failedOnly: true }` and the steps. */
  failedRequests: 100,
  /** Requests of any outcome kept for `read_network`. */
  requests: 100,
  /** Entries of each kind an observation lists; the rest are counted as omitted. */
  perStep: 10,
  /** Origins the guard's proxy refused, remembered to tell its refusals from other failures. */
  refusedOrigins: 50,
  textChars: 300,
  urlChars: 200,
  /** How long a page's console read may take before the step goes on without it. */
  readMs: 2_000,
} as const

/** A bounded list that forgets its oldest entries, and counts every entry it was given. */
class Ring<T> {
  readonly #items: T[] = []
  readonly #capacity: number
  /** Entries ever pushed; `#items` holds the last of them. */
  total = 0

  constructor(capacity: number) {
    this.#capacity = capacity
  }

  push(item: T): void {
    this.#items.push(item)
    if (this.#items.length > this.#capacity) this.#items.shift()
    this.total++
  }

  /** The entries pushed after the `since`-th that are still kept. */
  after(since: number): T[] {
    const fresh = Math.min(this.total - since, this.#items.length)
    return fresh > 0 ? this.#items.slice(-fresh) : []
  }

  /** Entries that came but are not kept: counted as if pushed and let go. */
  skip(count: number): void {
    if (count > 0) this.total += count
  }

  last(count: number): T[] {
    return this.#items.slice(-count)
  }
}

/**
 * What a run's pages reported: console errors and warnings, uncaught
 * exceptions, requests that failed or were refused (and, for `read_network`,
 * the recent requests of any outcome). One per session, fed by the context's
 * events and the network guard; each observation takes what is new.
 */
export class PageLog {
  readonly #console = new Ring<ConsoleEntry>(pageLogBounds.consoleEntries)
  readonly #failed = new Ring<NetworkEntry>(pageLogBounds.failedRequests)
  readonly #requests = new Ring<NetworkEntry>(pageLogBounds.requests)
  /** `host:port` → why the guard's proxy refused it: the proxy sees origins, the browser sees requests. */
  readonly #refusedOrigins = new Map<string, string>()
  #context: BrowserContext | undefined
  /** The console reader's global in each frame: random, as every name a page can see (view/page-name.ts). */
  readonly #readerName = pageName()
  #consoleTaken = 0
  #failedTaken = 0

  /** Listens to every page of the context, those opened later included; the console is kept in each page. */
  async watch(context: BrowserContext): Promise<void> {
    this.#context = context
    await context.addInitScript(
      consoleHookScript(this.#readerName, pageLogBounds.consoleEntries, pageLogBounds.textChars),
    )
    context.on('weberror', (error) => this.#onError(error))
    context.on('response', (response) => this.#onResponse(response))
    context.on('requestfailed', (request) => this.#onRequestFailed(request))
  }

  /** The network guard refused a request of a page (its route names the request; its proxy, the origin). */
  guardRefused(refusal: GuardRefusal): void {
    if (refusal.url) this.refused(refusal.url, refusal.reason, refusal.method ?? 'GET')
    else this.refusedOrigin(refusal.origin, refusal.reason)
  }

  /** The network guard's route refused a request of a page. */
  refused(url: string, reason: string, method: string): void {
    this.#request({ method, url: cleanUrl(url), refused: truncate(reason, pageLogBounds.textChars) })
  }

  /**
   * The guard's proxy refused a connection to `origin`: the page's request to it then fails (or gets the
   * proxy's 403) and is logged as refused. The browser's own traffic (autofill) is no page's, and not logged.
   */
  refusedOrigin(origin: string, reason: string): void {
    this.#refusedOrigins.delete(origin)
    this.#refusedOrigins.set(origin, truncate(reason, pageLogBounds.textChars))
    const oldest = this.#refusedOrigins.keys().next().value
    if (this.#refusedOrigins.size > pageLogBounds.refusedOrigins && oldest !== undefined)
      this.#refusedOrigins.delete(oldest)
  }

  /** What the pages reported since the last observation, their consoles read first. */
  async readNew(signal: AbortSignal): Promise<PageLogEntries | undefined> {
    await this.readConsoles(signal)
    return this.takeNew()
  }

  /** Takes in what the open pages logged since they were last read (console-hook.ts). */
  async readConsoles(signal: AbortSignal): Promise<void> {
    for (const page of this.#context?.pages() ?? []) {
      let read: Awaited<ReturnType<typeof takeConsole>>
      try {
        // A page busy in its own script answers no read: the step goes on without its console.
        read = await withDeadline(
          takeConsole(page, this.#readerName),
          pageLogBounds.readMs,
          signal,
          'console read',
        )
      } catch (error) {
        if (isAbortError(error)) throw error
        continue
      }
      const { entries, total } = read
      for (const entry of entries) {
        const source = entry.source ? cleanUrl(entry.source) : ''
        const text = truncate(entry.text, pageLogBounds.textChars)
        this.#console.push({ level: entry.level, text, ...(source ? { source } : {}) })
      }
      // What the page's own ring let go: counted, as the step's omitted entries.
      this.#console.skip(total - entries.length)
    }
  }

  /** What came since the last call, at most `perStep` of each kind; undefined when nothing did. */
  takeNew(): PageLogEntries | undefined {
    const console = this.#console.after(this.#consoleTaken)
    const network = this.#failed.after(this.#failedTaken)
    const arrived = this.#console.total - this.#consoleTaken + (this.#failed.total - this.#failedTaken)
    this.#consoleTaken = this.#console.total
    this.#failedTaken = this.#failed.total
    if (arrived === 0) return undefined
    const listed = {
      console: console.slice(0, pageLogBounds.perStep),
      network: network.slice(0, pageLogBounds.perStep),
    }
    return { ...listed, omitted: arrived - listed.console.length - listed.network.length }
  }

  /** The most recent console entries, oldest first. */
  recentConsole(count: number): ConsoleEntry[] {
    return this.#console.last(count)
  }

  /** The most recent requests (failed or refused only, with `failedOnly`), oldest first. */
  recentRequests(count: number, failedOnly: boolean): NetworkEntry[] {
    return (failedOnly ? this.#failed : this.#requests).last(count)
  }

  #onError(error: WebError): void {
    const { name, message } = error.error()
    const text = message.startsWith(name) || !name ? message : `${name}: ${message}`
    const source = cleanUrl(error.page()?.url() ?? '')
    this.#console.push({
      level: 'exception',
      text: truncate(text, pageLogBounds.textChars),
      ...(source ? { source } : {}),
    })
  }

  #onResponse(response: Response): void {
    const request = response.request()
    // The guard proxy's own answer to a refused plain-HTTP request.
    const refused = response.headers()[refusedHeader] ? this.#refusalOf(request.url()) : undefined
    this.#request({ ...requestFields(request), ...(refused ? { refused } : { status: response.status() }) })
  }

  #onRequestFailed(request: Request): void {
    const failure = request.failure()?.errorText ?? 'failed'
    // Aborted by the guard's route (`…BLOCKED_BY_CLIENT.Inspector`): the refusal is logged with its reason.
    if (failure.startsWith('net::ERR_BLOCKED_BY_CLIENT')) return
    const refused = this.#refusalOf(request.url())
    const outcome = refused ? { refused } : { failure: truncate(failure, pageLogBounds.textChars) }
    this.#request({ ...requestFields(request), ...outcome })
  }

  #refusalOf(text: string): string | undefined {
    if (this.#refusedOrigins.size === 0) return undefined
    try {
      const url = new URL(text)
      const host = canonicalHost(url.hostname) ?? url.hostname
      return this.#refusedOrigins.get(formatOrigin(host, effectivePort(url)))
    } catch {
      return undefined
    }
  }

  #request(entry: NetworkEntry): void {
    this.#requests.push(entry)
    if (isFailedRequest(entry)) this.#failed.push(entry)
  }
}

function requestFields(request: Request): NetworkEntry {
  return { method: request.method(), url: cleanUrl(request.url()), resourceType: request.resourceType() }
}

/** A URL without its query and fragment (where tokens travel), cut; a data: URL is only its scheme. */
function cleanUrl(text: string): string {
  if (!text) return ''
  if (text.startsWith('data:')) return 'data:…'
  try {
    const url = new URL(text)
    const rest = url.search ? '?…' : ''
    return truncate(
      `${url.origin === 'null' ? url.protocol : url.origin}${url.pathname}${rest}`,
      pageLogBounds.urlChars,
    )
  } catch {
    return truncate(text, pageLogBounds.urlChars)
  }
}
