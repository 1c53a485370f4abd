import type {
  Browser,
  BrowserContextOptions,
  LaunchOptions as PlaywrightLaunchOptions,
} from 'playwright-core'
import type { BrowserIdentity } from '../../config.ts'

export type { BrowserIdentity }

/*
 * How the run's browser presents itself to sites. `browser` (the default) is
 * a Chromium like a person's: no `HeadlessChrome` in its user agent or client
 * hints, no `navigator.webdriver`, no `--enable-automation`, and a screen
 * larger than its window. A blocked page is as unreachable as an element
 * with no ref, and most sites that turn headless browsers away check only
 * these. `automation` keeps every sign that an automated browser is at the
 * wheel, for runs that must identify themselves honestly. Neither solves or
 * bypasses a captcha: that stays a person's job (`hand_over`).
 */

/** A screen of a common desktop size; a window (the viewport) larger than it gets a screen of its own size. */
const desktopScreen = { width: 1920, height: 1080 }

/** Launch settings of an identity: what Chromium is started with. */
export function identityLaunchOptions(identity: BrowserIdentity): Pick<
  PlaywrightLaunchOptions,
  'ignoreDefaultArgs'
> & {
  args: string[]
} {
  if (identity === 'automation') return { args: [] }
  return {
    // Playwright passes --enable-automation (the "controlled by automated software" bar and
    // navigator.webdriver); AutomationControlled is the Blink feature that sets navigator.webdriver.
    ignoreDefaultArgs: ['--enable-automation'],
    args: ['--disable-blink-features=AutomationControlled'],
  }
}

/**
 * The context settings of an identity for this browser. The user agent is the
 * browser's own, read over CDP (so its platform and version stay true, also of
 * a browser on another machine), less the word `Headless`; the client hints'
 * brands already name Chromium alone in every mode.
 */
export async function identityContextOptions(
  browser: Browser,
  identity: BrowserIdentity,
): Promise<Pick<BrowserContextOptions, 'userAgent'>> {
  if (identity === 'automation') return {}
  const userAgent = await productUserAgent(browser)
  return userAgent.includes('HeadlessChrome/')
    ? { userAgent: userAgent.replace('HeadlessChrome/', 'Chrome/') }
    : {}
}

/** A screen no smaller than the window: a window wider than its screen gives a browser away. */
export function identityScreen(
  identity: BrowserIdentity,
  viewport: { width: number; height: number },
): Pick<BrowserContextOptions, 'screen'> {
  if (identity === 'automation') return {}
  return {
    screen: {
      width: Math.max(desktopScreen.width, viewport.width),
      height: Math.max(desktopScreen.height, viewport.height),
    },
  }
}

/**
 * Each browser's user agent, asked once: a browser's does not change, and
 * asking cost every session a CDP session of the browser's own (attach, ask,
 * detach) before its context could open.
 */
const userAgents = new WeakMap<Browser, Promise<string>>()

function productUserAgent(browser: Browser): Promise<string> {
  let asked = userAgents.get(browser)
  if (!asked) {
    asked = askUserAgent(browser)
    userAgents.set(browser, asked)
    // One that could not be asked is asked again by the next session, rather than leaving `HeadlessChrome` in all.
    void asked.then((userAgent) => {
      if (!userAgent) userAgents.delete(browser)
    })
  }
  return asked
}

/** The browser's own user agent; '' when it cannot be asked (a browser server that refuses CDP sessions). */
async function askUserAgent(browser: Browser): Promise<string> {
  const cdp = await browser.newBrowserCDPSession().catch(() => undefined)
  if (!cdp) return ''
  try {
    const { userAgent } = await cdp.send('Browser.getVersion')
    return userAgent
  } catch {
    return ''
  } finally {
    await cdp.detach().catch(() => {})
  }
}
