import { join } from 'node:path'
import { createBrowserPool } from '../browser/launcher.ts'
import type { BrowserSessionFactory } from '../browser/types.ts'
import type { Config } from '../config.ts'
import type { Logger } from '../log.ts'

export interface ConfiguredPool {
  /** Opens a run's session with the configured downloads folder, upload folder and window mode. */
  newSession: BrowserSessionFactory
  /** Launches Chromium now, so the first run does not wait for it. */
  warm(): Promise<void>
  close(): Promise<void>
}

/** The launcher's pool (one Chromium, a context per run) set up from the config. */
export function openBrowserPool(config: Config, log: Logger): ConfiguredPool {
  const pool = createBrowserPool({
    ...(config.chromium === undefined ? {} : { executablePath: config.chromium }),
    ...(config.browserWs === undefined ? {} : { wsEndpoint: config.browserWs }),
    ...(config.cdpUrl === undefined ? {} : { cdpUrl: config.cdpUrl }),
    headed: config.headed,
    logger: log,
  })
  const newSession: BrowserSessionFactory = (options, signal) =>
    pool.newSession(
      {
        ...options,
        runDir: options.runDir ?? join(config.runsDir, options.runId),
        ...(options.uploadDir === undefined && config.uploadDir !== undefined
          ? { uploadDir: config.uploadDir }
          : {}),
        headed: options.headed ?? config.headed,
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
  }
}
