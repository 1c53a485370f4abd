import { Hono } from 'hono'
import type { Logger } from '../log.ts'
import { folderStepFiles } from '../util/step-files.ts'
import { runNotFound } from './http/api-errors.ts'
import type { AppEnv } from './http/app-env.ts'
import { bearerAuth } from './http/auth.ts'
import { crossSiteCheck } from './http/cross-site.ts'
import { hostCheck } from './http/host-check.ts'
import { defaultMaxBodyBytes } from './http/request-body.ts'
import { requestLog } from './http/request-log.ts'
import { sseResponse } from './http/sse.ts'
import { answerErrors } from './http/to-api-error.ts'
import { type DeliverReply, interactionRoutes } from './routes/interactions.ts'
import { liveRoutes } from './routes/live.ts'
import { parseAfter } from './routes/runs.ts'
import { screenshotRoutes } from './routes/screenshots.ts'
import { takeoverRoutes } from './routes/takeover.ts'
import type { LiveRun } from './runs/live-run.ts'
import { settleReply } from './runs/run-replies.ts'
import { viewerRoutes } from './viewer/routes.ts'

export interface OneRunAppOptions {
  /** The one run this app serves; every other id is unknown here (404). */
  run: LiveRun
  /** Every /v1 request needs `Authorization: Bearer <token>`. */
  token: string
  /** The names the listener answers to in `Host` (see http/host-check.ts). */
  allowedHosts: readonly string[]
  log: Logger
  /** Where the run keeps its step files (screenshots, page views); undefined when it keeps none. */
  runsDir?: string | undefined
}

/**
 * The HTTP API of one run in this process, for the viewer's run page: what
 * that page reads (the run, its events, its live frames, its steps' pictures
 * and page views) and drives (the takeover, a person's input, replies to
 * confirmations and questions, abort),
 * mounted from the API's own route modules. `sextant run` serves it on loopback so a person can reach the
 * browser of a headless run; a server of runs uses createApp instead.
 */
export function createOneRunApp(options: OneRunAppOptions): Hono<AppEnv> {
  const { run, log } = options
  const id = run.info.id
  const liveRun = (runId: string) => (runId === id ? run : undefined)
  const runExists = async (runId: string) => runId === id

  const app = new Hono<AppEnv>()
  app.use(requestLog(log))
  app.use(hostCheck(options.allowedHosts))
  app.use(crossSiteCheck())
  app.use('/v1/*', bearerAuth(options.token))

  const own = (runId: string): LiveRun => {
    const found = liveRun(runId)
    if (!found) throw runNotFound(runId)
    return found
  }
  // The runs page lists what this server has: the one run.
  app.get('/v1/runs', (c) => c.json({ runs: [run.snapshot()] }))
  app.get('/v1/runs/:id', (c) => c.json({ ...own(c.req.param('id')).snapshot(), children: [] }))
  app.get('/v1/runs/:id/events', (c) => {
    const found = own(c.req.param('id'))
    const afterSeq = parseAfter(c.req.header('last-event-id') ?? c.req.query('after'))
    return sseResponse((signal) => found.follow(afterSeq, signal))
  })
  app.delete('/v1/runs/:id', (c) => {
    const found = own(c.req.param('id'))
    found.abort()
    return c.json({ ...found.snapshot(), children: [] })
  })
  app.route('/v1/runs', liveRoutes({ liveRun, runExists }))
  const files = options.runsDir === undefined ? undefined : folderStepFiles(options.runsDir)
  app.route('/v1/runs', screenshotRoutes({ liveRun, runExists, files }))
  app.route('/v1/runs', takeoverRoutes({ liveRun, runExists, maxBodyBytes: defaultMaxBodyBytes }))
  // A confirmation or a question may be answered here as at the terminal: whichever comes first counts.
  const reply: DeliverReply = async (message) => {
    if (!run.includes(message.runId)) return 'not_found'
    if (run.isDone) return 'ended'
    return settleReply(run, message)
  }
  app.route('/v1/runs', interactionRoutes(reply, defaultMaxBodyBytes))
  app.route('/', viewerRoutes({ authRequired: true }))

  answerErrors(app, log)
  return app
}
