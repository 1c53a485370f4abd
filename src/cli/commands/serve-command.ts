import { parseArgs } from 'node:util'
import { loadConfig } from '../../config.ts'
import { createLogger } from '../../log.ts'
import { modelSettingsFrom, resolveModel } from '../../model/resolve.ts'
import type { startServer } from '../../server/server.ts'
import { serveHelp } from '../help.ts'

/** Bound on a graceful shutdown: past it the process exits anyway, with status 1. */
const shutdownDeadlineMs = 9500

/** `sextant serve`: the HTTP API until SIGTERM or SIGINT, then a graceful stop. */
export async function serveCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  })
  if (values.help) {
    process.stdout.write(`${serveHelp}\n`)
    return 0
  }
  const config = loadConfig(process.env, {
    ...(values.port === undefined ? {} : { port: values.port }),
    ...(values.host === undefined ? {} : { host: values.host }),
  })
  const log = createLogger({ level: config.logLevel ?? 'info' })
  // A bad default model fails now, not at the first request; without one, every run must name its model.
  if (config.model !== undefined) {
    resolveModel(undefined, modelSettingsFrom(config))
  } else {
    log.warn('SEXTANT_MODEL is not set: every run must name its model')
  }

  // Loaded once the configuration is known good: a refused one never waits for the server, the agent and Playwright.
  const [{ runAgent }, { startServer: start }, { openRunStore }, { openBrowserPool }] = await Promise.all([
    import('../../agent/loop.ts'),
    import('../../server/server.ts'),
    import('../../store/open-store.ts'),
    import('../browser-pool.ts'),
  ])
  const { store, interrupted } = await openRunStore(config.db, { leaseMs: config.leaseMs })
  if (interrupted.length) log.warn({ runs: interrupted }, 'marked runs of a stopped process as failed')
  const pool = openBrowserPool(config, log)
  let server: Awaited<ReturnType<typeof startServer>>
  try {
    server = await start({
      config,
      store,
      browser: pool.newSession,
      browserHealth: pool.health,
      runAgent,
      log,
    })
  } catch (error) {
    await pool.close()
    await store.close()
    throw error
  }
  process.stderr.write(`Sextant listening on ${server.url}\n`)
  // Chromium starts now rather than on the first run; if it cannot, runs report why.
  pool.warm().catch((error: unknown) => log.error({ err: error }, 'Chromium could not be started'))

  const stopped = Promise.withResolvers<number>()
  let stopping = false
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return
    stopping = true
    log.info({ signal, liveRuns: server.manager.liveCount }, 'shutting down')
    const deadline = setTimeout(() => {
      log.error('shutdown took too long; exiting')
      stopped.resolve(1)
    }, shutdownDeadlineMs)
    void (async () => {
      try {
        await server.close()
        await pool.close()
        await store.close()
        stopped.resolve(0)
      } catch (error) {
        log.error({ err: error }, 'shutdown failed')
        stopped.resolve(1)
      } finally {
        clearTimeout(deadline)
      }
    })()
  }
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)
  const code = await stopped.promise
  log.flush()
  return code
}
