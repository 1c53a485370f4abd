import { type BrowserServer, chromium } from 'playwright-core'
import { afterAll, beforeAll } from 'vitest'
import { identityLaunchOptions } from '../../src/browser/launch/identity.ts'
import { chromiumFlags } from '../../src/browser/launch/launcher.ts'

export interface SharedBrowser {
  /** SEXTANT_BROWSER_WS for a CLI process: it connects to the file's Chromium instead of launching its own. */
  env(): { SEXTANT_BROWSER_WS: string }
}

/**
 * One Chromium for a test file's CLI processes, reached the way a user's fleet
 * is (SEXTANT_BROWSER_WS and `chromium.launchServer`), launched as the CLI
 * would launch it (same flags, default identity). A launch costs ~1.6 CPU-s,
 * most of a short run's browser work: a file of runs pays it once. Not for a
 * test about the launch itself (identity, headed, profiles, a crash, Ctrl-C's
 * browser), which needs the CLI's own Chromium.
 */
export function useBrowserServer(): SharedBrowser {
  let server: BrowserServer | undefined
  beforeAll(async () => {
    const identity = identityLaunchOptions('browser')
    server = await chromium.launchServer({
      executablePath: '/usr/bin/chromium',
      args: [...chromiumFlags, ...identity.args, ...(process.getuid?.() === 0 ? ['--no-sandbox'] : [])],
      ...(identity.ignoreDefaultArgs ? { ignoreDefaultArgs: identity.ignoreDefaultArgs } : {}),
    })
  })
  afterAll(async () => {
    await server?.close()
  })
  return {
    env: () => {
      if (!server) throw new Error("The shared browser is used before the file's beforeAll started it")
      return { SEXTANT_BROWSER_WS: server.wsEndpoint() }
    },
  }
}
