import type { BrowserSessionFactory } from '../browser/browser-session.ts'
import type { EndpointHealth } from '../browser/launch/endpoint-pool.ts'
import type { Config } from '../config.ts'
import type { Logger } from '../log.ts'
import type { RunStore } from '../store/run-store.ts'
import type { RunAgent } from './runs/run-manager.ts'

// Apart from server.ts, which starts what they describe, so that the run manager's setup reads them
// without importing the server that imports it.

/** What a server reads of the config. */
export type ServerConfig = Pick<
  Config,
  | 'host'
  | 'port'
  | 'apiToken'
  | 'maxRuns'
  | 'maxTurns'
  | 'model'
  | 'baseUrl'
  | 'apiKey'
  | 'anthropicApiKey'
  | 'anthropicBaseUrl'
  | 'googleApiKey'
  | 'googleBaseUrl'
  | 'prices'
> &
  Partial<
    Pick<
      Config,
      | 'openaiStore'
      | 'allowedHosts'
      | 'maxEventBytes'
      | 'runsDir'
      | 'screenshots'
      | 'screenshotQuality'
      | 'screenshotWidth'
      | 'vision'
      | 'handoverTimeoutMs'
      | 'maxRunMs'
      | 'replayWaitMs'
      | 'profileKey'
      | 'profileExport'
      | 'mcpIdleMs'
      | 'maxHandovers'
      | 'maxProfileBytes'
      | 'queue'
      | 'queueMax'
      | 'queueTimeoutMs'
      | 'heartbeatMs'
      | 'leaseMs'
      | 'internalUrl'
      | 'relaySecret'
      | 'webhookSecret'
      | 'webhookHosts'
      | 'allowInsecureTls'
      | 'webhookTimeoutMs'
      | 'blockPrivateNetworks'
      | 'artifacts'
      | 'maxArtifactBytes'
    >
  >

export interface ServerOptions {
  config: ServerConfig
  store: RunStore
  /** Each run's browser: the launcher pool's factory; null runs without one. */
  browser: BrowserSessionFactory | null
  runAgent: RunAgent
  log: Logger
  heartbeatMs?: number
  /** The remote browser endpoints' health, for /metrics. */
  browserHealth?: () => EndpointHealth[]
  confirmationTimeoutMs?: number
  questionTimeoutMs?: number
  /** Unwritten events held while the store is away before the runs that push more are stopped (default 10,000). */
  maxBufferedEvents?: number
}
