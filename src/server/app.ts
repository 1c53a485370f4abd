import { Hono } from 'hono'
import { describeRoute } from 'hono-openapi'
import type { Logger } from '../log.ts'
import type { AppEnv } from './http/app-env.ts'
import { bearerAuth } from './http/auth.ts'
import { crossSiteCheck } from './http/cross-site.ts'
import { hostCheck } from './http/host-check.ts'
import { openApiDescription, openApiHandler } from './http/openapi.ts'
import { defaultMaxBodyBytes } from './http/request-body.ts'
import { requestLog } from './http/request-log.ts'
import { open } from './http/route-docs.ts'
import { answerErrors } from './http/to-api-error.ts'
import type { ServerMetrics } from './metrics.ts'
import { artifactRoutes } from './routes/artifacts.ts'
import { downloadRoutes } from './routes/downloads.ts'
import { evalRoutes } from './routes/evals.ts'
import { interactionRoutes } from './routes/interactions.ts'
import { liveRoutes } from './routes/live.ts'
import type { LiveRunLookup } from './routes/live-run-lookup.ts'
import { mcpRoutes } from './routes/mcp.ts'
import { ownerTextRoutes } from './routes/owner-text.ts'
import { profileRoutes } from './routes/profiles.ts'
import { relayToOwner } from './routes/relay.ts'
import { runRoutes } from './routes/runs.ts'
import { screenshotRoutes } from './routes/screenshots.ts'
import { takeoverRoutes } from './routes/takeover.ts'
import type { RunManager } from './runs/run-manager.ts'
import { viewerRoutes } from './viewer/routes.ts'

export interface AppOptions {
  manager: RunManager
  /** GET /metrics; absent: no such route (tests of the app alone). */
  metrics?: ServerMetrics
  log: Logger
  /** When set, /v1 routes need `Authorization: Bearer <apiToken>`. */
  apiToken?: string
  /** The names the server answers to in `Host` (see http/host-check.ts); absent: any (tests of the app alone). */
  allowedHosts?: readonly string[]
  version: string
  maxBodyBytes?: number
  heartbeatMs?: number
  /** Proves relays between the servers sharing a store (see routes/relay.ts); absent: no relay either way. */
  relaySecret?: string
  /** GET /v1/profiles/:name/export answers values (SEXTANT_PROFILE_EXPORT). */
  profileExport?: boolean
  /** An idle MCP session closes after this long (SEXTANT_MCP_IDLE_MS). */
  mcpIdleMs?: number
}

/** The HTTP API as a Hono app; it owns no resources, so tests can build one per case. */
export function createApp(options: AppOptions): Hono<AppEnv> {
  const { manager, log } = options
  const maxBodyBytes = options.maxBodyBytes ?? defaultMaxBodyBytes
  const app = new Hono<AppEnv>()

  app.use(requestLog(log))
  if (options.allowedHosts) app.use(hostCheck(options.allowedHosts))
  app.use(crossSiteCheck())
  if (options.apiToken) app.use('/v1/*', bearerAuth(options.apiToken))
  // Metrics name runs' outcomes and browser endpoints: behind the same token as the API.
  if (options.apiToken) app.use('/metrics', bearerAuth(options.apiToken))
  // MCP starts runs like /v1 does: the same token guards it.
  if (options.apiToken) app.use('/mcp', bearerAuth(options.apiToken))

  app.get('/healthz', healthzDescription, (c) =>
    c.json({ ok: true, version: options.version, liveRuns: manager.liveCount }),
  )
  const metrics = options.metrics
  if (metrics) {
    app.get('/metrics', metricsDescription, async (c) =>
      c.body(await metrics.text(), 200, { 'Content-Type': metrics.contentType }),
    )
  }
  const auth = Boolean(options.apiToken)
  app.get('/openapi.json', openApiDescription, openApiHandler(app, { version: options.version, auth }))

  app.route('/v1/runs', runRoutes({ manager, maxBodyBytes, ...pick(options, 'heartbeatMs') }))
  app.route(
    '/v1/runs',
    interactionRoutes((message) => manager.reply(message), maxBodyBytes),
  )
  const lookup: LiveRunLookup = {
    liveRun: (id) => manager.get(id),
    runExists: async (id) => (await manager.view(id)) !== undefined,
  }
  // Routes that need the run's own process are relayed to the server that runs it, each with the one
  // bound on a body its handler reads with, which the relay reads no further than (0: none is read).
  const ownerRoutes = {
    '/v1/runs/:id/live': 0,
    '/v1/runs/:id/takeover': 0,
    '/v1/runs/:id/input': maxBodyBytes,
  }
  for (const [path, routeMaxBytes] of Object.entries(ownerRoutes))
    app.use(
      path,
      relayToOwner({
        secret: options.relaySecret,
        liveRun: lookup.liveRun,
        ownerUrl: (id) => manager.ownerUrl(id),
        selfUrl: () => manager.internalUrl,
        maxBodyBytes: routeMaxBytes,
      }),
    )
  app.route('/v1/runs', screenshotRoutes({ ...lookup, files: manager.stepFiles }))
  app.route('/v1/runs', downloadRoutes({ ...lookup, downloads: manager.downloads }))
  app.route('/v1/runs', artifactRoutes({ ...lookup, artifacts: manager.artifacts?.store }))
  // Between the servers of a fleet: a run's model text as it streams, for followers on the others.
  app.route('/internal', ownerTextRoutes({ secret: options.relaySecret, liveRun: lookup.liveRun }))
  app.route(
    '/v1/runs',
    liveRoutes({
      ...lookup,
      ...(metrics ? { hooks: metrics.liveView } : {}),
      ...pick(options, 'heartbeatMs'),
    }),
  )
  app.route('/v1/runs', takeoverRoutes({ ...lookup, maxBodyBytes: ownerRoutes['/v1/runs/:id/input'] }))
  app.route('/mcp', mcpRoutes({ manager, version: options.version, ...pick(options, 'mcpIdleMs') }))
  app.route('/', viewerRoutes({ authRequired: Boolean(options.apiToken) }))
  app.route(
    '/v1/profiles',
    profileRoutes({
      profiles: manager.profiles,
      maxBodyBytes,
      exportAllowed: options.profileExport === true,
    }),
  )
  app.route('/v1/evals', evalRoutes({ manager, maxBodyBytes, log, ...pick(options, 'heartbeatMs') }))

  answerErrors(app, log, ' See /openapi.json.')
  return app
}

const healthzDescription = describeRoute({
  summary: 'Liveness',
  ...open,
  responses: {
    '200': {
      description: 'The server is up',
      content: {
        'application/json': {
          schema: {
            type: 'object',
            properties: { ok: { const: true }, version: { type: 'string' }, liveRuns: { type: 'integer' } },
            required: ['ok', 'version', 'liveRuns'],
          },
        },
      },
    },
  },
})

const metricsDescription = describeRoute({
  summary: 'Prometheus metrics of this server (docs/deploy.md#metrics)',
  responses: {
    '200': {
      description: 'Prometheus text exposition format',
      content: { 'text/plain': { schema: { type: 'string' } } },
    },
  },
})

function pick<T extends object, K extends keyof T>(value: T, key: K): Partial<Pick<T, K>> {
  return value[key] === undefined ? {} : ({ [key]: value[key] } as Pick<T, K>)
}
