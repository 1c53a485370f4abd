import { type Browser, chromium } from 'playwright-core'
import {
  type BrowserConfig,
  ConfigError,
  configEnvironment,
  loadBrowserConfig,
  splitEndpoints,
} from '../../config.ts'
import { type Logger, silentLogger } from '../../log.ts'
import { AbortError, abortable } from '../../tool.ts'
import type { BrowserSession, BrowserSessionFactory, BrowserSessionOptions } from '../browser-session.ts'
import { startSession } from '../session/playwright-session.ts'
import { openSessionContext } from '../session/session-context.ts'
import { findChromium } from './find-chromium.ts'
import { type BrowserIdentity, identityLaunchOptions } from './identity.ts'
import { startVirtualDisplay } from './virtual-display.ts'

export { BrowserNotFoundError, findChromium } from './find-chromium.ts'

/**
 * Finds, launches or connects to Chromium. One browser serves many runs; each
 * run gets its own context, closed when its session closes. The only module
 * that touches Playwright's `chromium`. Its settings come as parameters: the
 * environment is config.ts's to read.
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
  const endpoint = options.wsEndpoint ?? options.cdpUrl
  if (!endpoint) return true
  try {
    const host = new URL(endpoint).hostname.replace(/^\[|\]$/g, '')
    return host === 'localhost' || host === '::1' || /^127\./.test(host)
  } catch {
    return false
  }
}

export interface LaunchOptions {
  /** Chromium to launch (else Playwright's cache, then the system's). */
  executablePath?: string | undefined
  /** Where `executablePath` came from, named if it is not a browser (default: "the executablePath option"). */
  executablePathSource?: string | undefined
  /** Playwright's browser cache to search for Chromium (default: the per-user cache). */
  browsersPath?: string | undefined
  /** Show the browser window (default: headless). */
  headed?: boolean | undefined
  /** A headed browser draws into a virtual display of its own (Xvfb), for servers without a screen. */
  virtualDisplay?: boolean | undefined
  /** How the browser presents itself to sites (default `browser`: no sign of automation; see identity.ts). */
  identity?: BrowserIdentity | undefined
  /** Connect to a Playwright browser server (`chromium.launchServer`) instead of launching. */
  wsEndpoint?: string | undefined
  /** Connect to a Chrome DevTools Protocol endpoint instead of launching. */
  cdpUrl?: string | undefined
  /** Extra Chromium flags. */
  args?: string[] | undefined
  /**
   * Whether Playwright closes the browser and exits the process (code 130) on
   * Ctrl-C and SIGTERM (default true, as Playwright does). A process that
   * handles those signals itself sets false: Playwright's handler would close
   * the browser under its runs and exit before they are aborted, stored and
   * traced. The browser is still killed when the process exits.
   */
  handleSignals?: boolean | undefined
  logger?: Logger | undefined
  /** Launch or connect timeout (default 30 s). */
  timeoutMs?: number | undefined
}

/** The launch settings of a configuration: SEXTANT_CHROMIUM, PLAYWRIGHT_BROWSERS_PATH, SEXTANT_BROWSER_WS, SEXTANT_CDP_URL. */
export function launchOptionsFrom(config: BrowserConfig): LaunchOptions {
  return {
    executablePath: config.chromium,
    executablePathSource: config.chromium === undefined ? undefined : configEnvironment.chromium,
    browsersPath: config.browsersPath,
    // One browser for a caller without a pool: the first of a fleet (the server spreads over all, see endpoint-pool.ts).
    wsEndpoint: splitEndpoints(config.browserWs)[0],
    cdpUrl: splitEndpoints(config.cdpUrl)[0],
    identity: config.browserIdentity,
  }
}

/** How a pool gets a browser for its launch settings: `launchBrowser`, unless its caller lends one. */
export type BrowserLauncher = (options: LaunchOptions) => Promise<Browser>

export async function launchBrowser(options: LaunchOptions = {}): Promise<Browser> {
  const logger = options.logger ?? silentLogger()
  const timeout = options.timeoutMs ?? 30_000
  const { wsEndpoint, cdpUrl } = options
  if (wsEndpoint && cdpUrl) {
    // config.ts refuses this pair in the environment; a caller's options may still bring it together.
    throw new ConfigError(['set only one of wsEndpoint and cdpUrl'])
  }
  if (wsEndpoint) {
    logger.info({ wsEndpoint }, 'connecting to a remote browser')
    return chromium.connect(wsEndpoint, { timeout })
  }
  if (cdpUrl) {
    logger.info({ cdpUrl }, 'connecting to a browser over CDP')
    return chromium.connectOverCDP(cdpUrl, { timeout })
  }
  const executablePath = findChromium({
    executablePath: options.executablePath,
    executablePathSource: options.executablePathSource,
    browsersPath: options.browsersPath,
  })
  const identity = identityLaunchOptions(options.identity ?? 'browser')
  const args = [
    ...chromiumFlags,
    ...identity.args,
    ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
    ...(options.args ?? []),
  ]
  const headed = options.headed ?? false
  const display = headed && options.virtualDisplay ? await startVirtualDisplay(timeout) : undefined
  logger.info({ executablePath, headed, display: display?.name }, 'launching Chromium')
  try {
    const browser = await chromium.launch({
      executablePath,
      headless: !headed,
      args,
      timeout,
      handleSIGINT: options.handleSignals ?? true,
      handleSIGTERM: options.handleSignals ?? true,
      ...(identity.ignoreDefaultArgs ? { ignoreDefaultArgs: identity.ignoreDefaultArgs } : {}),
      ...(display ? { env: { ...process.env, DISPLAY: display.name } } : {}),
    })
    // The display lives as long as its browser, however the browser ends.
    if (display) browser.on('disconnected', () => void display.close())
    return browser
  } catch (error) {
    await display?.close()
    throw error
  }
}

export interface BrowserPool {
  /** Opens a run's session: a new context in the shared browser, launched on first use. */
  newSession: BrowserSessionFactory
  /** Launches (or connects to) the browser now, so the first run does not wait for it. */
  warm(): Promise<void>
  /** Closes every open session and the browsers. */
  close(): Promise<void>
  /** Sessions open now. */
  liveSessions(): number
}

/**
 * One browser (per headless/headed mode), many sessions. The browser is
 * launched lazily on the first session; a failed launch is retried on the
 * next one, and a browser that disconnects is replaced. Launch settings not
 * given come from the configuration (SEXTANT_CHROMIUM, SEXTANT_BROWSER_WS, …),
 * refused as the CLI refuses them when they conflict. `launch` is how the pool
 * gets a browser for those settings (the test suite lends one browser to many
 * pools this way); the pool closes what it returns.
 */
export function createBrowserPool(
  given: LaunchOptions = {},
  launch: BrowserLauncher = launchBrowser,
): BrowserPool {
  const options = withConfiguredDefaults(given)
  const browsers = new Map<string, Promise<Browser>>()
  const sessions = new Set<BrowserSession>()
  let closed = false
  const proxyReachable = guardProxyReachable(options)

  // A run that sees its browser dead gets a new one here: Playwright turns isConnected() false in the
  // same call that emits 'disconnected', so by then `forget` has dropped the dead browser.
  const browserFor = (headed: boolean): Promise<Browser> => {
    const key = headed ? 'headed' : 'headless'
    let pending = browsers.get(key)
    if (!pending) {
      const launching = launch({ ...options, headed })
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
    const { context, guard, recorder } = await openSessionContext(
      browser,
      sessionOptions,
      proxyReachable,
      options.identity,
    )
    if (signal.aborted) {
      await context.close().catch(() => {})
      await guard.close()
      await recorder?.dispose()
      throw new AbortError()
    }
    const holder: { session?: BrowserSession } = {}
    const session = await startSession(context, sessionOptions, signal, {
      guard,
      ...(recorder ? { recorder } : {}),
      logger: options.logger,
      remote: connectsToRemote(options),
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

  return { newSession, warm, close, liveSessions: () => sessions.size }
}

/**
 * A session with a browser of its own, closed with the session: for
 * `runAgent()` called without a browser. Launch settings not given come from
 * the configuration, as for a pool.
 */
export async function openStandaloneSession(
  options: BrowserSessionOptions & LaunchOptions,
  signal: AbortSignal,
): Promise<BrowserSession> {
  const launchSettings = withConfiguredDefaults(options)
  const launching = launchBrowser(launchSettings)
  const browser = await abortable(launching, signal).catch((error: unknown) => {
    // Aborted mid-launch: the browser still comes up, and must go down again.
    launching.then((late) => late.close()).catch(() => {})
    throw error
  })
  try {
    const { context, guard, recorder } = await openSessionContext(
      browser,
      options,
      guardProxyReachable(launchSettings),
      launchSettings.identity,
    )
    return await startSession(context, options, signal, {
      guard,
      ...(recorder ? { recorder } : {}),
      logger: options.logger,
      remote: connectsToRemote(launchSettings),
      onClose: () => browser.close().catch(() => {}),
    })
  } catch (error) {
    await browser.close().catch(() => {})
    throw error
  }
}

/** Whether these settings connect to a browser elsewhere rather than launch one here. */
function connectsToRemote(options: LaunchOptions): boolean {
  return Boolean(options.wsEndpoint ?? options.cdpUrl)
}

/**
 * The caller's launch settings over the configured ones: a library caller
 * without a CLI still gets SEXTANT_CHROMIUM and the rest, read and validated
 * by config.ts alone.
 */
function withConfiguredDefaults(options: LaunchOptions): LaunchOptions {
  const own = definedOnly(options)
  return {
    ...launchOptionsFrom(loadBrowserConfig()),
    // A path given here is not SEXTANT_CHROMIUM's: an error must not name that variable.
    ...(own.executablePath === undefined ? {} : { executablePathSource: undefined }),
    ...own,
  }
}

/** `options` without its undefined fields, so that spreading it keeps the configured values they leave unset. */
function definedOnly<T extends object>(options: T): Partial<T> {
  // fromEntries loses the key types; the entries are options' own, so they fit T.
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>
}
