import { join } from 'node:path'
import type { BrowserSessionFactory } from '../browser/browser-session.ts'
import {
  type BrowserEndpoint,
  createEndpointPool,
  type EndpointHealth,
} from '../browser/launch/endpoint-pool.ts'
import {
  type BrowserLauncher,
  type BrowserPool,
  createBrowserPool,
  launchBrowser,
} from '../browser/launch/launcher.ts'
import { type Config, splitEndpoints } from '../config.ts'
import type { Logger } from '../log.ts'

export interface ConfiguredPool {
  /** Opens a run's session with the configured downloads folder, upload folder and window mode. */
  newSession: BrowserSessionFactory
  /** Launches Chromium now, so the first run does not wait for it. */
  warm(): Promise<void>
  close(): Promise<void>
  /** The remote browser endpoints and how they fare; empty when Chromium is launched here. */
  health(): EndpointHealth[]
}

/**
 * The launcher's pool (one Chromium, a context per run) set up from the
 * config; with remote endpoints (SEXTANT_BROWSER_WS or SEXTANT_CDP_URL, one
 * or several), one such pool per endpoint, runs spread over them. `launch` is
 * passed to each pool (see createBrowserPool).
 */
export function openBrowserPool(
  config: Config,
  log: Logger,
  launch: BrowserLauncher = launchBrowser,
): ConfiguredPool {
  const endpoints: BrowserEndpoint[] = [
    ...splitEndpoints(config.browserWs).map((url) => ({ kind: 'ws' as const, url })),
    ...splitEndpoints(config.cdpUrl).map((url) => ({ kind: 'cdp' as const, url })),
  ]
  const launched = (endpoint?: BrowserEndpoint): BrowserPool =>
    createBrowserPool(
      {
        ...(config.chromium === undefined ? {} : { executablePath: config.chromium }),
        ...(endpoint?.kind === 'ws' ? { wsEndpoint: endpoint.url } : {}),
        ...(endpoint?.kind === 'cdp' ? { cdpUrl: endpoint.url } : {}),
        headed: config.headed !== false,
        virtualDisplay: config.headed === 'virtual',
        identity: config.browserIdentity,
        // Every command that opens this pool stops on Ctrl-C and SIGTERM itself, its runs stored first.
        handleSignals: false,
        logger: log,
      },
      launch,
    )
  const fleet =
    endpoints.length === 0
      ? undefined
      : createEndpointPool({ endpoints, open: launched, cooldownMs: config.endpointCooldownMs, logger: log })
  const pool = fleet ?? launched()
  const newSession: BrowserSessionFactory = (options, signal) =>
    pool.newSession(
      {
        ...options,
        runDir: options.runDir ?? join(config.runsDir, options.runId),
        ...(options.uploadDir === undefined && config.uploadDir !== undefined
          ? { uploadDir: config.uploadDir }
          : {}),
        headed: options.headed ?? config.headed !== false,
        // A run may ask for more protection than the operator's, never less.
        blockPrivateNetworks: Boolean(options.blockPrivateNetworks) || config.blockPrivateNetworks,
        maxTabs: Math.min(options.maxTabs ?? config.maxTabs, config.maxTabs),
        maxTextChars: options.maxTextChars ?? config.maxTitleChars,
        maxDownloadBytes: options.maxDownloadBytes ?? config.maxDownloadBytes,
      },
      signal,
    )
  return {
    newSession,
    // A context opened and closed at once leaves the launched browser in the pool.
    warm: async () => {
      const session = await pool.newSession({ runId: 'warmup' }, new AbortController().signal)
      await session.close()
    },
    close: () => pool.close(),
    health: () => fleet?.health() ?? [],
  }
}
