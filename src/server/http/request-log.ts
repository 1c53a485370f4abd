import type { MiddlewareHandler } from 'hono'
import type { Logger } from '../../log.ts'
import type { AppEnv } from './app-env.ts'

/** One log line per request, when its response starts (an event stream's start, not its end). */
export function requestLog(log: Logger): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now()
    await next()
    const runId = c.get('runId')
    log.info(
      {
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        durationMs: Math.round((performance.now() - started) * 10) / 10,
        ...(runId ? { runId } : {}),
      },
      'request',
    )
  }
}
