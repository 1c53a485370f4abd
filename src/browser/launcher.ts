import { type Browser, chromium } from 'playwright-core'
import { type Logger, silentLogger } from '../log.ts'
import { AbortError, abortable } from '../tool.ts'
import { findChromium } from './find-chromium.ts'
import { openSessionContext, startSession } from './session.ts'
import type { BrowserSession, BrowserSessionFactory, BrowserSessionOptions } from './types.ts'

export { BrowserNotFoundError, findChromium } from './find-chromium.ts'

/**
 * Finds, launches or connects to Chromium. One browser serves many runs; each
 * run gets its own context, closed when its session closes. The only module
 * that touches Playwright's `chromium`.
 */

/** Without these, Chromium on a machine with no internet floods refused connections. */
export const chromiumFlags = [
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
]

/**
 * Whether the browser runs on this machine (launched, or connected to on a
 * loopback address), and so can reach the network guard's proxy on 127.0.0.1.
 */
export function guardProxyReachable(options: LaunchOptions): boolean {
  const env = options.env ?? process.env
  const endpoint = options.wsEndpoint ?? env.SEXTANT_BROWSER_WS ?? options.cdpUrl ?? env.SEXTANT_CDP_URL
  if (!endpoint) return true
  try {
    const host = new URL(endpoint).hostname.replace(/^\[|\]$/g, '')
    return host === 'localhost' || host === '::1' || /^127\./.test(host)
  } catch {
    return false
  }
}

export interface LaunchOptions {
  /** Chromium to launch (else SEXTANT_CHROMIUM, Playwright's cache, the system's). */
  executablePath?: string
  /** Show the browser window (default: headless). */
  headed?: boolean
  /** Connect to a Playwright browser server (`chromium.launchServer`) instead of launching; else SEXTANT_BROWSER_WS. */
  wsEndpoint?: string
  /** Connect to a Chrome DevTools Protocol endpoint instead of launching; else SEXTANT_CDP_URL. */
  cdpUrl?: string
  /** Extra Chromium flags. */
  args?: string[]
  /** Environment to read SEXTANT_* variables from (default: process.env). */
  env?: NodeJS.ProcessEnv
  logger?: Logger
  /** Launch or connect timeout (default 30 s). */
  timeoutMs?: number
}

export async function launchBrowser(options: LaunchOptions = {}): Promise<Browser> {
  const env = options.env ?? process.env
  const logger = options.logger ?? silentLogger()
  const timeout = options.timeoutMs ?? 30_000
  const wsEndpoint = options.wsEndpoint ?? env.SEXTANT_BROWSER_WS
  const cdpUrl = options.cdpUrl ?? env.SEXTANT_CDP_URL
  if (wsEndpoint) {
    logger.info({ wsEndpoint }, 'connecting to a remote browser')
    return chromium.connect(wsEndpoint, { timeout })
  }
  if (cdpUrl) {
    logger.info({ cdpUrl }, 'connecting to a browser over CDP')
    return chromium.connectOverCDP(cdpUrl, { timeout })
  }
  const executablePath = findChromium({ executablePath: options.executablePath, env })
  const args = [
    ...chromiumFlags,
    ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
    ...(options.args ?? []),
  ]
  logger.info({ executablePath, headed: options.headed ?? false }, 'launching Chromium')
  return chromium.launch({ executablePath, headless: !options.headed, args, timeout })
}

export interface BrowserPool {
  /** Opens a run's session: a new context in the shared browser, launched on first use. */
  newSession: BrowserSessionFactory
  /** Launches (or connects to) the browser now, so the first run does not wait for it. */
  warm(): Promise<void>
  /** Closes every open session and the browsers. */
  close(): Promise<void>
}

/**
 * One browser (per headless/headed mode), many sessions. The browser is
 * launched lazily on the first session; a failed launch is retried on the
 * next one, and a browser that disconnects is replaced.
 */
export function createBrowserPool(options: LaunchOptions = {}): BrowserPool {
  const browsers = new Map<string, Promise<Browser>>()
  const sessions = new Set<BrowserSession>()
  let closed = false
  const proxyReachable = guardProxyReachable(options)

  const browserFor = (headed: boolean): Promise<Browser> => {
    const key = headed ? 'headed' : 'headless'
    let pending = browsers.get(key)
    if (!pending) {
      const launching = launchBrowser({ ...options, headed })
      pending = launching
      browsers.set(key, launching)
      const forget = () => {
        if (browsers.get(key) === launching) browsers.delete(key)
      }
      launching.then((browser) => browser.on('disconnected', forget), forget)
    }
    return pending
  }

  const newSession: BrowserSessionFactory = async (sessionOptions, signal) => {
    if (closed) throw new Error('The browser pool is closed.')
    const browser = await abortable(browserFor(sessionOptions.headed ?? options.headed ?? false), signal)
    const { context, guard } = await openSessionContext(browser, sessionOptions, proxyReachable)
    if (signal.aborted) {
      await context.close().catch(() => {})
      await guard.close()
      throw new AbortError()
    }
    const holder: { session?: BrowserSession } = {}
    const session = await startSession(context, sessionOptions, signal, {
      guard,
      logger: options.logger,
      onClose: async () => {
        if (holder.session) sessions.delete(holder.session)
      },
    })
    holder.session = session
    sessions.add(session)
    return session
  }

  const close = async () => {
    closed = true
    await Promise.all([...sessions].map((session) => session.close()))
    const pending = [...browsers.values()]
    browsers.clear()
    await Promise.all(
      pending.map((launching) => launching.then((browser) => browser.close()).catch(() => {})),
    )
  }

  const warm = async () => {
    if (closed) throw new Error('The browser pool is closed.')
    await browserFor(options.headed ?? false)
  }

  return { newSession, warm, close }
}

/**
 * A session with a browser of its own, closed with the session: for
 * `runAgent()` called without a browser.
 */
export async function openStandaloneSession(
  options: BrowserSessionOptions & LaunchOptions,
  signal: AbortSignal,
): Promise<BrowserSession> {
  const launching = launchBrowser(options)
  const browser = await abortable(launching, signal).catch((error: unknown) => {
    // Aborted mid-launch: the browser still comes up, and must go down again.
    launching.then((late) => late.close()).catch(() => {})
    throw error
  })
  try {
    const { context, guard } = await openSessionContext(browser, options, guardProxyReachable(options))
    return await startSession(context, options, signal, {
      guard,
      logger: options.logger,
      onClose: () => browser.close().catch(() => {}),
    })
  } catch (error) {
    await browser.close().catch(() => {})
    throw error
  }
}
