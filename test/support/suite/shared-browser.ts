import type { Browser, BrowserContext, BrowserContextOptions } from 'playwright-core'
import { type BrowserLauncher, launchBrowser } from '../../../src/browser/launch/launcher.ts'

// A default-run worker runs file after file in the modules it has loaded (isolate: false), this one among them,
// so the files of a worker can share one Chromium: a launch with its first page costs about 1.2 CPU-s here, a
// new context with its page about 0.6. Each file borrows the browser and closes only the contexts it opened;
// test/support/suite/closed-browsers.ts fails a file that leaves one open.

interface Shared {
  readonly browser: Browser
  /** The browser process, which closed-browsers.ts does not count as left running. */
  readonly pid: number
}

/**
 * The worker's browser. Module state on purpose: it is the worker's, not a file's. A browser that died (a test
 * that kills the worker's Chromiums as a crash would) is replaced on the next borrow.
 */
let shared: Promise<Shared> | undefined
let current: Shared | undefined

async function launchShared(): Promise<Shared> {
  const browser = await launchBrowser({})
  const cdp = await browser.newBrowserCDPSession()
  const { processInfo } = await cdp.send('SystemInfo.getProcessInfo')
  await cdp.detach()
  const pid = processInfo.find((info) => info.type === 'browser')?.id
  if (pid === undefined) throw new Error('Chromium did not name its browser process')
  current = { browser, pid }
  return current
}

function sharedBrowser(): Promise<Shared> {
  if (!shared || (current && !current.browser.isConnected())) {
    current = undefined
    shared = launchShared()
    shared.catch(() => {
      shared = undefined
    })
  }
  return shared
}

/** The pid of the worker's shared browser while it runs, and the contexts open in it. */
export function sharedBrowserState(): { pid?: number; contexts: BrowserContext[] } {
  if (!current?.browser.isConnected()) return { contexts: [] }
  return { pid: current.pid, contexts: current.browser.contexts() }
}

/**
 * The worker's browser, lent to one user: its `newContext` and `newPage` are tracked, and its `close()` closes
 * those and drops the listeners the user added, leaving the browser running for the next file.
 */
export async function borrowBrowser(): Promise<Browser> {
  const { browser } = await sharedBrowser()
  // Each context with the promise of its 'close' event: a second close() of a closing context does not wait.
  const opened = new Map<BrowserContext, Promise<void>>()
  const listened: Array<[string | symbol, (...args: unknown[]) => void]> = []
  const newContext = async (options?: BrowserContextOptions): Promise<BrowserContext> => {
    const context = await browser.newContext(options)
    opened.set(
      context,
      new Promise((resolve) =>
        context.once('close', () => {
          opened.delete(context)
          resolve()
        }),
      ),
    )
    return context
  }
  const lent: Partial<Browser> = {
    newContext,
    // Playwright's own newPage gives the page a context of its own, closed with it: so here.
    newPage: async (options?: BrowserContextOptions) => {
      const context = await newContext(options)
      const page = await context.newPage()
      page.on('close', () => void context.close().catch(() => {}))
      return page
    },
    contexts: () => browser.contexts().filter((context) => opened.has(context)),
    close: async () => {
      for (const [event, listener] of listened.splice(0)) browser.off(event as 'disconnected', listener)
      await Promise.all(
        [...opened].map(([context, closed]) => Promise.all([context.close().catch(() => {}), closed])),
      )
    },
  }
  const listen =
    (method: 'on' | 'once' | 'addListener') => (event: string, listener: (...args: unknown[]) => void) => {
      listened.push([event, listener])
      browser[method](event as 'disconnected', listener)
      return proxy
    }
  Object.assign(lent, { on: listen('on'), once: listen('once'), addListener: listen('addListener') })
  const proxy: Browser = new Proxy(browser, {
    get(target, key) {
      if (Object.hasOwn(lent, key)) return lent[key as keyof Browser]
      const value: unknown = Reflect.get(target, key, target)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
  return proxy
}

/**
 * A pool's launcher (createBrowserPool's `launch`) that lends the worker's browser for the plain launch every
 * test pool makes, and launches anything else (headed, another identity, flags, a remote browser) as asked.
 */
export const sharedLaunch: BrowserLauncher = (options) => {
  const plain =
    !options.headed &&
    !options.wsEndpoint &&
    !options.cdpUrl &&
    (options.identity ?? 'browser') === 'browser' &&
    !options.args?.length &&
    !options.browsersPath &&
    (options.executablePath === undefined || options.executablePath === '/usr/bin/chromium')
  return plain ? borrowBrowser() : launchBrowser(options)
}
