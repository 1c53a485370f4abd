import { readFileSync, writeFileSync } from 'node:fs'
import { basename } from 'node:path'
import { parseArgs } from 'node:util'
import { loadConfig } from '../../config.ts'
import { type EvalReport, EvalReportSchema, isEvalEvent } from '../../events/eval-events.ts'
import { createLogger } from '../../log.ts'
import { loadPriceTable } from '../../model/prices.ts'
import { modelSettingsFrom, resolveModel } from '../../model/resolve.ts'
import { openStore } from '../../store/open-store.ts'
import { profilesOf } from '../../store/profiles/open-profiles.ts'
import type { RunStore } from '../../store/run-store.ts'
import { startTracing } from '../../telemetry/tracing.ts'
import { describeError } from '../../util/describe-error.ts'
import { artifactKeeping } from '../artifact-flags.ts'
import { evalHelp, UsageError } from '../help.ts'
import { keyLog } from '../profile-option.ts'

/**
 * `sextant eval suite.yaml`: every task of a suite, per model, K times, in
 * one browser pool; live progress, a table at the end, JSON/JUnit files, a
 * comparison with an earlier report. Exit 0 when every run passed, 1 when
 * some did not, 2 on a usage error, 130 when aborted.
 */
export async function evalCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      model: { type: 'string', multiple: true },
      repeat: { type: 'string' },
      concurrency: { type: 'string' },
      json: { type: 'string' },
      junit: { type: 'string' },
      compare: { type: 'string' },
      'serve-fixtures': { type: 'boolean', default: false },
      headed: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  })
  if (values.help) {
    process.stdout.write(`${evalHelp}\n`)
    return 0
  }
  if (positionals.length !== 1)
    throw new UsageError('"sextant eval" needs one suite file, e.g. sextant eval suite.yaml.')
  const repeat = count(values.repeat, '--repeat', 1, 100)
  const concurrency = count(values.concurrency, '--concurrency', 1, 32)

  // Everything a user can get wrong is checked before any browser starts.
  const { loadSuite, SuiteError } = await import('../../eval/suite.ts')
  const { unfilledPlaceholders, unkeepableLimits } = await import('../../eval/resolve-task.ts')
  const { missingSecrets, secretsFromEnvironment } = await import('../../eval/eval-secrets.ts')
  let loaded: ReturnType<typeof loadSuite>
  try {
    loaded = loadSuite(positionals[0] ?? '')
  } catch (error) {
    if (error instanceof SuiteError) throw new UsageError(error.message)
    throw error
  }
  if (values['serve-fixtures'] && !loaded.fixturesDir)
    throw new UsageError(`--serve-fixtures: ${loaded.source} names no "fixtures" folder.`)
  const problems = [
    ...unfilledPlaceholders(loaded.suite, values['serve-fixtures'] ? 'http://fixtures' : undefined),
    // The CLI's secrets come from the environment of the person running it (over HTTP, from the request).
    ...missingSecrets(loaded.suite, process.env),
  ]
  if (problems.length > 0) throw new UsageError(problems.join('\n'))
  const previous = values.compare === undefined ? undefined : readReport(values.compare)

  const config = loadConfig(process.env, values.headed === undefined ? {} : { headed: values.headed })
  const settings = modelSettingsFrom(config)
  const names = values.model ?? [undefined]
  const models = names.map((name) => {
    const resolved = resolveModel(name, settings)
    return { name: resolved.name, model: resolved.model }
  })
  const prices = loadPriceTable(config.prices)
  // A dollar cap needs a priced model: refused now, before any browser starts, rather than as failed runs.
  const unkeepable = unkeepableLimits(loaded.suite, models, prices)
  if (unkeepable.length > 0) throw new UsageError(unkeepable.join('\n'))
  // Logs would tear through the progress line; they are on only when asked for.
  const log = createLogger({ level: config.logLevel ?? 'silent' })

  const [
    { runEval },
    { serveFixtures },
    { openBrowserPool },
    { EvalView, comparisonText },
    { toJUnit },
    { compareReports },
  ] = await Promise.all([
    import('../../eval/run-eval.ts'),
    import('../../eval/fixture-server.ts'),
    import('../browser-pool.ts'),
    import('../terminal/eval-view.ts'),
    import('../../eval/junit.ts'),
    import('../../eval/eval-report.ts'),
  ])
  const view = new EvalView((text) => process.stdout.write(text), {
    tty: Boolean(process.stdout.isTTY),
    color: Boolean(process.stdout.isTTY) && process.stdout.hasColors(),
  })
  const controller = new AbortController()
  let interrupts = 0
  const onInterrupt = () => {
    interrupts++
    if (interrupts > 1) process.exit(130)
    view.notice('Aborting the eval… (press Ctrl-C again to quit at once)')
    controller.abort()
  }
  process.on('SIGINT', onInterrupt)
  process.on('SIGTERM', onInterrupt)

  const fixtures =
    values['serve-fixtures'] && loaded.fixturesDir ? await serveFixtures(loaded.fixturesDir) : undefined
  if (fixtures) view.notice(`Serving ${loaded.fixturesDir} at ${fixtures.url}`)
  const store = await openRecordingStore(config.db)
  const pool = openBrowserPool(config, log)
  // Loads the OpenTelemetry SDK only when the OTEL_* variables ask for traces; flushed below, Ctrl-C or not.
  const tracing = await startTracing()
  let report: EvalReport | undefined
  try {
    const events = runEval({
      suite: loaded.suite,
      suiteLabel: basename(loaded.source),
      models,
      repeat,
      concurrency,
      browser: pool.newSession,
      ...(fixtures ? { fixturesUrl: fixtures.url } : {}),
      prices,
      ...(tracing ? { tracer: tracing.tracer } : {}),
      signal: controller.signal,
      secrets: secretsFromEnvironment(loaded.suite, process.env),
      ...(config.webhookSecret === undefined
        ? {}
        : {
            webhooks: {
              secret: config.webhookSecret,
              attemptTimeoutMs: config.webhookTimeoutMs,
              ...(config.webhookHosts ? { hosts: config.webhookHosts } : {}),
            },
          }),
      ...(store ? { store, profiles: profilesOf(store, config, keyLog()) } : {}),
      ...optionalArtifacts(artifactKeeping(config, store)),
      log,
    })
    for await (const event of events) {
      if (isEvalEvent(event)) view.render(event)
      if (event.type === 'eval_finished') report = event.report
    }
  } finally {
    view.close()
    process.off('SIGINT', onInterrupt)
    process.off('SIGTERM', onInterrupt)
    await pool.close()
    await fixtures?.close()
    await store?.close()
    await tracing
      ?.shutdown()
      .catch((error: unknown) => log.warn({ err: error }, 'could not export the traces'))
  }
  if (!report) return 1
  if (values.json !== undefined) {
    writeFileSync(values.json, `${JSON.stringify(report, null, 2)}\n`)
    process.stdout.write(`Report written to ${values.json}\n`)
  }
  if (values.junit !== undefined) {
    writeFileSync(values.junit, toJUnit(report))
    process.stdout.write(`JUnit written to ${values.junit}\n`)
  }
  if (previous)
    process.stdout.write(`\n${comparisonText(compareReports(previous.report, report), previous.path)}`)
  if (controller.signal.aborted) return 130
  return report.totals.passedRuns === report.totals.runs ? 0 : 1
}

function count(value: string | undefined, flag: string, min: number, max: number): number {
  if (value === undefined) return 1
  const number = Number(value)
  if (!Number.isInteger(number) || number < min || number > max)
    throw new UsageError(`${flag} must be an integer from ${min} to ${max} (got "${value}").`)
  return number
}

function readReport(path: string): { path: string; report: EvalReport } {
  let json: unknown
  try {
    json = JSON.parse(readFileSync(path, 'utf8'))
  } catch (error) {
    throw new UsageError(`--compare: cannot read ${path}: ${describeError(error)}`)
  }
  const parsed = EvalReportSchema.safeParse(json)
  if (!parsed.success)
    throw new UsageError(
      `--compare: ${path} is not a report written by "sextant eval --json": ${parsed.error.issues[0]?.message}`,
    )
  return { path, report: parsed.data }
}

/** Runs are recorded so that each run id in the report opens with `sextant runs show`; without a store, they are not. */
async function openRecordingStore(db: string): Promise<RunStore | undefined> {
  try {
    return await openStore(db)
  } catch (error) {
    process.stderr.write(`sextant: not recording the runs (${describeError(error)})\n`)
    return undefined
  }
}

function optionalArtifacts(keeping: ReturnType<typeof artifactKeeping>) {
  return keeping ? { artifacts: keeping } : {}
}
