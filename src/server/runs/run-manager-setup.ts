import type { Tracer } from '@opentelemetry/api'
import { defaultMaxArtifactBytes } from '../../agent/run/run-artifacts.ts'
import type { ScreenshotSettings } from '../../agent/run/run-options.ts'
import type { BrowserSessionFactory } from '../../browser/browser-session.ts'
import type { AgentEvent } from '../../events/events.ts'
import { loadPriceTable } from '../../model/prices.ts'
import { modelSettingsFrom, resolveModel } from '../../model/resolve.ts'
import type { EventWriterHooks } from '../../store/event-writer.ts'
import { profilesOf } from '../../store/profiles/open-profiles.ts'
import type { RunStore } from '../../store/run-store.ts'
import { artifactPlace, isSharedStore } from '../../store/shared.ts'
import { type DownloadStore, folderDownloads } from '../../util/run-downloads.ts'
import { relaySecretOf } from '../routes/relay.ts'
import { RunWebhooks } from '../run-webhooks.ts'
import type { ServerConfig, ServerOptions } from '../server-options.ts'
import { RunManager, type RunManagerOptions } from './run-manager.ts'

export interface RunManagerHooks {
  /** Sees every event of every run (metrics). */
  observe?: (event: AgentEvent) => void
  /** Origins every run's browser refuses, whatever its allowedDomains say (the server's own). */
  deniedOrigins?: () => string[]
  /** Told of store outages and recoveries (metrics); they are logged either way. */
  storeWrites?: EventWriterHooks
  /** false when no person can reach the runs (no HTTP server): they get no handover desk. */
  handover?: boolean
  /** Traces runs (OTEL_*, see telemetry/tracing.ts); absent: none. */
  tracer?: Tracer
}

/**
 * The run manager as configured: what `sextant serve` runs behind HTTP and
 * `sextant mcp` behind stdio, so both admit, run and store runs alike.
 */
export function createRunManager(
  options: Omit<ServerOptions, 'browserHealth'>,
  hooks: RunManagerHooks = {},
): RunManager {
  const { config, log } = options
  const denied = hooks.deniedOrigins
  const modelSettings = modelSettingsFrom(config)
  const relaySecret = relaySecretOf(config)
  return new RunManager({
    ...(hooks.observe ? { observe: hooks.observe } : {}),
    ...(hooks.storeWrites ? { storeWrites: hooks.storeWrites } : {}),
    ...(hooks.handover === false ? { handover: false } : {}),
    ...(hooks.tracer ? { tracer: hooks.tracer } : {}),
    ...(options.maxBufferedEvents === undefined ? {} : { maxBufferedEvents: options.maxBufferedEvents }),
    store: options.store,
    profiles: profilesOf(options.store, config, log),
    runAgent: options.runAgent,
    resolveModel: (name) => resolveModel(name, modelSettings),
    // Read once: a bad SEXTANT_PRICES stops the server here, not each run.
    prices: loadPriceTable(config.prices),
    // Every run's browser refuses this server's own origins, whatever its allowedDomains say.
    browser: options.browser && denied ? withDeniedOrigins(options.browser, denied) : options.browser,
    webhooks: new RunWebhooks({
      store: options.store,
      secret: config.webhookSecret,
      hosts: config.webhookHosts,
      attemptTimeoutMs: config.webhookTimeoutMs,
      blockPrivateNetworks: config.blockPrivateNetworks,
      ...(denied ? { deniedOrigins: denied } : {}),
      log,
    }),
    maxRuns: config.maxRuns,
    ...(config.allowInsecureTls ? { allowInsecureTls: true } : {}),
    defaultMaxTurns: config.maxTurns,
    ...(config.maxEventBytes === undefined ? {} : { maxEventBytes: config.maxEventBytes }),
    ...(options.confirmationTimeoutMs === undefined
      ? {}
      : { confirmationTimeoutMs: options.confirmationTimeoutMs }),
    ...(options.questionTimeoutMs === undefined ? {} : { questionTimeoutMs: options.questionTimeoutMs }),
    ...(config.queue ? { queue: true } : {}),
    ...(config.queueMax === undefined ? {} : { queueMax: config.queueMax }),
    ...(config.queueTimeoutMs === undefined ? {} : { queueTimeoutMs: config.queueTimeoutMs }),
    ...(config.heartbeatMs === undefined ? {} : { heartbeatMs: config.heartbeatMs }),
    ...(config.leaseMs === undefined ? {} : { leaseMs: config.leaseMs }),
    ...screenshotSettings(config, options.store),
    ...downloadsOf(config, options.store),
    ...artifactsOf(config, options.store),
    ...(relaySecret === undefined ? {} : { relaySecret }),
    ...(config.vision === undefined ? {} : { vision: config.vision }),
    ...(config.handoverTimeoutMs === undefined ? {} : { handoverTimeoutMs: config.handoverTimeoutMs }),
    ...(config.maxHandovers === undefined ? {} : { maxHandovers: config.maxHandovers }),
    ...(config.maxRunMs === undefined ? {} : { maxRunMs: config.maxRunMs }),
    ...(config.replayWaitMs === undefined ? {} : { replayWaitMs: config.replayWaitMs }),
    log,
  })
}

/** Screenshots are kept when there is a runs folder for them and they are not turned off (SEXTANT_SCREENSHOTS=off). */
function screenshotSettings(config: ServerConfig, store: RunStore): { screenshots?: ScreenshotSettings } {
  if (config.runsDir === undefined || config.screenshots === false) return {}
  return {
    screenshots: {
      dir: config.runsDir,
      // On a shared store, every server serves every run's step files, after their server is gone.
      ...(isSharedStore(store) ? { files: store.stepFiles } : {}),
      ...(config.screenshotQuality === undefined ? {} : { quality: config.screenshotQuality }),
      ...(config.screenshotWidth === undefined ? {} : { maxWidth: config.screenshotWidth }),
    },
  }
}

/** On a shared store a run's downloads are kept there too; otherwise its folder is where they are. */
function downloadsOf(config: ServerConfig, store: RunStore): { downloads?: DownloadStore } {
  if (isSharedStore(store)) return { downloads: store.downloads }
  return config.runsDir === undefined ? {} : { downloads: folderDownloads(config.runsDir) }
}

/** Artifacts are kept where downloads are: in the shared store, else in the run's folder; neither, none. */
function artifactsOf(config: ServerConfig, store: RunStore): Pick<RunManagerOptions, 'artifacts'> {
  const kept = artifactPlace(store, config.runsDir)
  if (!kept) return {}
  const defaults = config.artifacts
  return {
    artifacts: {
      store: kept,
      maxBytes: config.maxArtifactBytes ?? defaultMaxArtifactBytes,
      ...(defaults && Object.keys(defaults).length > 0 ? { defaults } : {}),
    },
  }
}

/** A session factory whose sessions also refuse `denied()` origins. */
function withDeniedOrigins(factory: BrowserSessionFactory, denied: () => string[]): BrowserSessionFactory {
  return (sessionOptions, signal) =>
    factory(
      { ...sessionOptions, deniedOrigins: [...(sessionOptions.deniedOrigins ?? []), ...denied()] },
      signal,
    )
}
