import type { BrowserSession, SessionState } from '../../browser/browser-session.ts'
import { wantsArtifacts } from '../../browser/session/artifacts/artifact-settings.ts'
import type { Logger } from '../../log.ts'
import type { RunOptions } from './run-options.ts'
import type { OpenedBrowser } from './run-state.ts'

/** The run's browser as its options ask: none, the caller's own session, the caller's factory, or a local Chromium. */
export async function openBrowser(
  options: RunOptions,
  runId: string,
  signal: AbortSignal,
  storageState?: SessionState,
): Promise<OpenedBrowser | undefined> {
  if (options.browser === null) return undefined
  const downloads = options.downloads
  const sessionOptions = {
    runId,
    ...(storageState ? { storageState } : {}),
    ...(options.startUrl ? { startUrl: options.startUrl } : {}),
    ...(options.allowedDomains ? { allowedDomains: options.allowedDomains } : {}),
    ...(options.blockPrivateNetworks ? { blockPrivateNetworks: true } : {}),
    ...(options.proxy ? { proxy: options.proxy } : {}),
    ...(options.browserContext ? { context: options.browserContext } : {}),
    ...(wantsArtifacts(options.artifacts)
      ? { artifacts: { ...options.artifacts, traceScreenshots: !typesSecrets(options) } }
      : {}),
    ...(options.maxDownloadBytes !== undefined ? { maxDownloadBytes: options.maxDownloadBytes } : {}),
    ...(downloads ? { keepDownload: (name: string, path: string) => downloads.put(runId, name, path) } : {}),
  }
  if (typeof options.browser === 'function') {
    return { browser: await options.browser(sessionOptions, signal), owned: true }
  }
  if (options.browser) return { browser: options.browser, owned: false }
  // Loaded on demand so that callers bringing their own session never load Playwright.
  const { openStandaloneSession } = await import('../../browser/launch/launcher.ts')
  return { browser: await openStandaloneSession(sessionOptions, signal), owned: true }
}

/** Closes a browser the run opened; a failure to close is logged, never thrown (the run has its outcome). */
export function closeBrowser(browser: BrowserSession, log: Logger, runId: string): Promise<void> {
  return browser.close().catch((error: unknown) => {
    log.warn({ runId, err: error }, 'closing the browser failed')
  })
}

/** Whether the run may type secrets: then no picture of its pages is kept unmasked (the trace's screenshots). */
export function typesSecrets(options: Pick<RunOptions, 'secrets'>): boolean {
  return options.secrets !== undefined && Object.keys(options.secrets).length > 0
}
