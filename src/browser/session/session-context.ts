import type { Browser, BrowserContext, BrowserContextOptions } from 'playwright-core'
import type { BrowserSessionOptions } from '../browser-session.ts'
import { type BrowserIdentity, identityContextOptions, identityScreen } from '../launch/identity.ts'
import { SessionNetworkGuard } from '../network/session-guard.ts'
import { ArtifactRecorder } from './artifacts/artifact-recorder.ts'
import { wantsArtifacts } from './artifacts/artifact-settings.ts'
import { contextSettingsOptions } from './context-settings.ts'

export const defaultViewport = { width: 1280, height: 800 }

/** The context a run's session needs: its viewport, screen, downloads, and its network guard's proxy. */
export function sessionContextOptions(
  options: BrowserSessionOptions,
  guard?: SessionNetworkGuard,
  identity: BrowserIdentity = 'browser',
): BrowserContextOptions {
  const viewport = options.viewport ?? defaultViewport
  return {
    viewport,
    ...identityScreen(identity, viewport),
    acceptDownloads: true,
    // One language everywhere: navigator.language(s), Accept-Language and Intl agree.
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
  identity: BrowserIdentity = 'browser',
): Promise<{ context: BrowserContext; guard: SessionNetworkGuard; recorder?: ArtifactRecorder }> {
  const [guard, presented] = await Promise.all([
    SessionNetworkGuard.open(options, useProxy),
    identityContextOptions(browser, identity),
  ])
  const recorder = wantsArtifacts(options.artifacts)
    ? await ArtifactRecorder.prepare(options.artifacts)
    : undefined
  try {
    const asked = options.context ? contextSettingsOptions(options.context, presented.userAgent) : {}
    const contextOptions = {
      ...sessionContextOptions(options, guard, identity),
      ...presented,
      ...asked,
      ...recorder?.contextOptions(),
    }
    // A viewport the run asked for without a device gets a screen no smaller than itself, as the default does.
    if (options.context?.viewport && !options.context.device)
      Object.assign(contextOptions, identityScreen(identity, options.context.viewport))
    const context = await browser.newContext(contextOptions)
    // The run's init scripts run as the page's own code would: in its main world, before its scripts.
    for (const content of options.context?.initScripts ?? []) await context.addInitScript({ content })
    await recorder?.start(context, `sextant run ${options.runId}`)
    return { context, guard, ...(recorder ? { recorder } : {}) }
  } catch (error) {
    await guard.close()
    await recorder?.dispose()
    throw error
  }
}
