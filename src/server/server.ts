import { readFileSync } from 'node:fs'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { hostname } from 'node:os'
import { serve } from '@hono/node-server'
import { ownOrigins } from '../browser/network/own-origins.ts'
import { ConfigError, isLoopbackHost } from '../config.ts'
import { isSharedStore } from '../store/shared.ts'
import { startTracing } from '../telemetry/tracing.ts'
import { settlesWithin } from '../util/deadline.ts'
import { createApp } from './app.ts'
import { ownHostNames } from './http/host-check.ts'
import { ServerMetrics } from './metrics.ts'
import { relaySecretOf } from './routes/relay.ts'
import type { RunManager } from './runs/run-manager.ts'
import { createRunManager } from './runs/run-manager-setup.ts'
import type { ServerOptions } from './server-options.ts'

/** How long open streams get to flush after the runs have ended, before their connections are cut. */
const closeGraceMs = 500

export interface SextantServer {
  /** http://host:port */
  url: string
  port: number
  manager: RunManager
  /**
   * Stops accepting connections, aborts live runs and waits until they are
   * stored, then closes the remaining connections. The store and the browser
   * belong to the caller.
   */
  close(): Promise<void>
}

/** Builds the run manager and the app, and listens. Refuses a non-loopback address without a token. */
export async function startServer(options: ServerOptions): Promise<SextantServer> {
  const { config, log } = options
  if (!isLoopbackHost(config.host) && !config.apiToken) {
    throw new ConfigError([
      `SEXTANT_HOST: listening on ${config.host} exposes the browser to the network; set SEXTANT_API_TOKEN first (or listen on 127.0.0.1)`,
    ])
  }
  // Known once listening (port 0 picks one); no run starts before that.
  let deniedOrigins: string[] = []
  const store = options.store
  if (config.queue && !isSharedStore(store)) {
    log.warn(
      'SEXTANT_QUEUE needs a postgres:// SEXTANT_DB; runs beyond SEXTANT_MAX_RUNS are refused with 429',
    )
  }
  // Filled once the manager exists; the manager tells it every event.
  let liveRuns = () => 0
  const metrics = new ServerMetrics({
    liveRuns: () => liveRuns(),
    ...(isSharedStore(store) && config.queue ? { queueDepth: () => store.queueDepth() } : {}),
    ...(options.browserHealth ? { browserHealth: options.browserHealth } : {}),
  })
  // Loads the OpenTelemetry SDK only when the OTEL_* variables ask for traces.
  const tracing = await startTracing()
  const manager = createRunManager(options, {
    ...(tracing ? { tracer: tracing.tracer } : {}),
    observe: (event) => metrics.observe(event),
    storeWrites: metrics.storeWrites,
    deniedOrigins: () => deniedOrigins,
  })
  liveRuns = () => manager.liveCount
  // Listening to the other servers sharing the store before taking requests.
  await manager.attach()
  const app = createApp({
    manager,
    metrics,
    log,
    allowedHosts: ownHostNames(config.host, config.allowedHosts),
    version: packageVersion(),
    ...(config.apiToken === undefined ? {} : { apiToken: config.apiToken }),
    ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
    ...(config.profileExport ? { profileExport: true } : {}),
    ...(config.mcpIdleMs === undefined ? {} : { mcpIdleMs: config.mcpIdleMs }),
    ...optional('relaySecret', relaySecretOf(config)),
  })

  const server = await new Promise<Server>((resolve, reject) => {
    const created = serve({ fetch: app.fetch, hostname: config.host, port: config.port }, () =>
      resolve(created as Server),
    ) as Server
    created.once('error', reject)
  })
  const { port } = server.address() as AddressInfo
  deniedOrigins = ownOrigins(config.host, port)
  const host = config.host.includes(':') && !config.host.startsWith('[') ? `[${config.host}]` : config.host
  const url = `http://${host}:${port}`
  manager.internalUrl = config.internalUrl ?? internalUrlOf(config.host, port)
  log.info({ url, maxRuns: config.maxRuns, auth: Boolean(config.apiToken) }, 'listening')

  let closing: Promise<void> | undefined
  return {
    url,
    port,
    manager,
    close: () => {
      closing ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()))
        server.closeIdleConnections()
        await manager.shutdown()
        // Streams end after their run's done; give them a moment to flush, then cut what is left.
        await settlesWithin(closed, closeGraceMs)
        server.closeAllConnections()
        await closed
        await tracing
          ?.shutdown()
          .catch((error: unknown) => log.warn({ err: error }, 'could not export the last traces'))
        log.info('server closed')
      })()
      return closing
    },
  }
}

/** The address other servers reach this one by, unless SEXTANT_INTERNAL_URL says: its host name when it listens on every address. */
function internalUrlOf(listenHost: string, port: number): string {
  const everywhere = listenHost === '0.0.0.0' || listenHost === '::' || listenHost === '[::]'
  const host = everywhere
    ? hostname()
    : listenHost.includes(':') && !listenHost.startsWith('[')
      ? `[${listenHost}]`
      : listenHost
  return `http://${host}:${port}`
}

function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>)
}

export function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version?: string
    }
    return pkg.version ?? '0.0.0'
  } catch {
    return '0.0.0'
  }
}
