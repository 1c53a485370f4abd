import type { Browser, BrowserContext, BrowserContextOptions } from 'playwright-core'
import type { BrowserSessionOptions } from '../browser-session.ts'
import { SessionNetworkGuard } from '../network/session-guard.ts'

export const defaultViewport = { width: 1280, height: 800 }

/** The context a run's session needs: its viewport, downloads, and its network guard's proxy. */
export function sessionContextOptions(
  options: BrowserSessionOptions,
  guard?: SessionNetworkGuard,
): BrowserContextOptions {
  return {
    viewport: options.viewport ?? defaultViewport,
    acceptDownloads: true,
    locale: 'en-US',
    ...(options.storageState ? { storageState: options.storageState } : {}),
    ...(guard ? guard.contextOptions() : { serviceWorkers: 'block' as const }),
  }
}

/**
 * A run's context behind its network guard. `useProxy` is false only for a
 * browser on another machine, which cannot reach the guard's proxy.
 */
export async function openSessionContext(
  browser: Browser,
  options: BrowserSessionOptions,
  useProxy: boolean,
): Promise<{ context: BrowserContext; guard: SessionNetworkGuard }> {
  const guard = await SessionNetworkGuard.open(options, useProxy)
  try {
    return { context: await browser.newContext(sessionContextOptions(options, guard)), guard }
  } catch (error) {
    await guard.close()
    throw error
  }
}
