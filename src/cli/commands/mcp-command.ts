import { parseArgs } from 'node:util'
import { pino } from 'pino'
import { loadConfig } from '../../config.ts'
import { createLogger } from '../../log.ts'
import { modelSettingsFrom, resolveModel } from '../../model/resolve.ts'
import { startTracing } from '../../telemetry/tracing.ts'
import { mcpHelp } from '../help.ts'

/**
 * `sextant mcp`: the MCP tools over stdio until the host closes stdin (or
 * SIGTERM / SIGINT), then live runs are aborted and stored. Runs go through
 * the same run manager as `sextant serve`, configured by the same environment.
 */
export async function mcpCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { help: { type: 'boolean', short: 'h' } } })
  if (values.help) {
    process.stdout.write(`${mcpHelp}\n`)
    return 0
  }
  const config = loadConfig(process.env)
  // A bad model fails now, before the host's first call; the message reaches the host's log.
  if (config.model !== undefined) resolveModel(undefined, modelSettingsFrom(config))
  // stdout carries the protocol: every log line goes to stderr.
  const log = createLogger({
    level: config.logLevel ?? 'warn',
    destination: pino.destination({ fd: 2, sync: true }),
  })
  // Loaded once the configuration is known good: --help and a refused one never wait for the server, the agent and Playwright.
  const [
    { StdioServerTransport },
    { runAgent },
    { createMcpServer },
    { managerBackend },
    { createRunManager },
    { packageVersion },
    { openRunStore },
    { openBrowserPool },
  ] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/stdio.js'),
    import('../../agent/loop.ts'),
    import('../../mcp/mcp-server.ts'),
    import('../../server/runs/mcp-backend.ts'),
    import('../../server/runs/run-manager-setup.ts'),
    import('../../server/server.ts'),
    import('../../store/open-store.ts'),
    import('../browser-pool.ts'),
  ])
  const { store, interrupted } = await openRunStore(config.db, { leaseMs: config.leaseMs })
  if (interrupted.length) log.warn({ runs: interrupted }, 'marked runs of a stopped process as failed')
  const pool = openBrowserPool(config, log)
  // Loads the OpenTelemetry SDK only when the OTEL_* variables ask for traces; flushed as the host goes.
  const tracing = await startTracing()
  // Over stdio there is no viewer nor takeover route: a run's hand_over would wait for nobody.
  const manager = createRunManager(
    { config, store, browser: pool.newSession, runAgent, log },
    { handover: false, ...(tracing ? { tracer: tracing.tracer } : {}) },
  )
  const closed = Promise.withResolvers<void>()
  try {
    await manager.attach()
    const mcp = createMcpServer(managerBackend(manager), packageVersion())
    const transport = new StdioServerTransport()
    transport.onclose = () => closed.resolve()
    process.stdin.once('end', () => closed.resolve())
    process.once('SIGTERM', () => closed.resolve())
    process.once('SIGINT', () => closed.resolve())
    await mcp.connect(transport)
    await closed.promise
    await mcp.close()
  } finally {
    await manager.shutdown()
    await pool.close()
    await store.close()
    await tracing
      ?.shutdown()
      .catch((error: unknown) => log.warn({ err: error }, 'could not export the traces'))
  }
  return 0
}
