import { parseArgs } from 'node:util'
import { pino } from 'pino'
import { createHandoverDesk } from '../../agent/handover/handover-desk.ts'
import type { RunProfiles } from '../../agent/run/profile-save.ts'
import { refuseUnkeepableLimits } from '../../agent/run/run-limits.ts'
import type { RunOptions } from '../../agent/run/run-options.ts'
import { runOptionsFor } from '../../agent/run/run-request.ts'
import { type RunRequest, RunRequestSchema } from '../../agent/run/run-request-fields.ts'
import { type Config, loadConfig } from '../../config.ts'
import type { AgentEvent } from '../../events/events.ts'
import { newRunId } from '../../events/run-id.ts'
import { createLogger, type Logger } from '../../log.ts'
import { findPrice, loadPriceTable, type PriceTable } from '../../model/prices.ts'
import { modelSettingsFrom, type ResolvedModel, resolveModel } from '../../model/resolve.ts'
import type { Recording } from '../../recording/schema.ts'
import { traceparentOf } from '../../telemetry/traceparent.ts'
import { startTracing } from '../../telemetry/tracing.ts'
import { artifactKeeping, readArtifactFlags } from '../artifact-flags.ts'
import { readBrowserFlags } from '../browser-flags.ts'
import { runHelp, UsageError } from '../help.ts'
import { dataLine, readOutputSchema } from '../output-option.ts'
import { openRunProfile } from '../profile-option.ts'
import {
  checkUrl,
  readDuration,
  readInstructions,
  readMaxCost,
  readMaxTokens,
  readProxy,
  readSecrets,
  readSubAgents,
  readVariables,
  runCommandOptions,
} from '../run-flags.ts'
import { openRecorder } from '../store-recorder.ts'
import { ask, type PromptIo } from '../terminal/prompts.ts'
import { terminalHandover } from '../terminal/terminal-handover.ts'
import { terminalReplies } from '../terminal/terminal-replies.ts'
import { exitCodeFor, TerminalView } from '../terminal/terminal-view.ts'

/** `sextant run "task"`: one run in the terminal, or as JSON lines with --json. */
export async function runCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: runCommandOptions })
  if (values.help) {
    process.stdout.write(`${runHelp}\n`)
    return 0
  }
  const task = positionals.join(' ').trim()
  if (!task)
    throw new UsageError(
      '"sextant run" needs a task, e.g. sextant run "Find the opening hours of the library".',
    )
  // The flags, as the run request they make (the same schema as the API's body); the model, turns
  // and vision are configuration read with the environment's, below.
  const subAgents = values['sub-agents'] === undefined ? undefined : readSubAgents(values['sub-agents'])
  const variables = readVariables(values.var ?? [])
  const browser = readBrowserFlags(values)
  const artifacts = readArtifactFlags(values)
  const request = checkedRequest({
    task,
    ...(values.url === undefined ? {} : { startUrl: checkUrl(values.url) }),
    ...(values.instructions === undefined ? {} : { instructions: readInstructions(values.instructions) }),
    ...(values.secret === undefined ? {} : { secrets: readSecrets(values.secret, process.env) }),
    // The task's {{name}} templates: the model reads the values, the run's recording keeps the templates.
    ...(Object.keys(variables).length > 0 ? { variables } : {}),
    ...(subAgents === undefined ? {} : { subAgents: { max: subAgents } }),
    ...(values.output === undefined ? {} : { output: readOutputSchema(values.output) }),
    ...(values.proxy === undefined ? {} : { proxy: readProxy(values.proxy) }),
    ...(browser === undefined ? {} : { browser }),
    ...(artifacts === undefined ? {} : { artifacts }),
    ...(values['max-tokens'] === undefined ? {} : { maxSessionTokens: readMaxTokens(values['max-tokens']) }),
    ...(values['max-cost'] === undefined ? {} : { maxCostUsd: readMaxCost(values['max-cost']) }),
    ...(values['max-duration'] === undefined ? {} : { maxDurationMs: readDuration(values['max-duration']) }),
    ...(values['allow-domain'] === undefined ? {} : { allowedDomains: values['allow-domain'] }),
    ...(values['no-handover'] ? { handover: false } : {}),
    ...optionalTraceparent(values.traceparent),
  })

  // Configuration and the model are checked before any browser starts.
  const config = loadConfig(process.env, {
    ...(values.model === undefined ? {} : { model: values.model }),
    ...(values['max-turns'] === undefined ? {} : { maxTurns: values['max-turns'] }),
    ...(values.headed === undefined ? {} : { headed: values.headed }),
    ...(values.vision === undefined ? {} : { vision: values.vision }),
  })
  const model = resolveModel(undefined, modelSettingsFrom(config))
  const prices = loadPriceTable(config.prices)
  // Before any browser starts: a dollar cap needs the model's price.
  refuseUnkeepableLimits(request, model.name, findPrice(model.name, prices))

  // Logs would tear through the live view; they are on only when asked for.
  const log = config.logLevel
    ? createLogger({ level: config.logLevel, destination: pino.destination({ fd: 2, sync: true }) })
    : createLogger({ level: 'silent' })
  const profile = await openRunProfile(values.profile, values['profile-save'], config)
  try {
    return await execute({
      request: { ...request, ...profile?.request },
      model,
      prices,
      config,
      json: values.json,
      log,
      ...(profile ? { profiles: profile.profiles } : {}),
    })
  } finally {
    await profile?.close()
  }
}

/** --traceparent (checked with the request), else TRACEPARENT as OpenTelemetry's environment carrier names it (a malformed one is passed over). */
export function optionalTraceparent(flag: string | undefined): { traceparent?: string } {
  const traceparent = flag ?? traceparentOf(process.env.TRACEPARENT)
  return traceparent === undefined ? {} : { traceparent }
}

export interface Execution {
  /** What the command asks of the run: its flags as a run request. */
  request: RunRequest & { task: string }
  /** Absent only for a replay, which then runs without a model. */
  model: ResolvedModel | undefined
  /** The recording a replay runs. */
  replay?: Recording
  /** Where the request's profile is kept. */
  profiles?: RunProfiles
  prices: PriceTable
  config: Config
  json: boolean
  log: Logger
  /** Sees every event (a replay keeps them for --save). */
  onEvent?: (event: AgentEvent) => void
}

export async function execute({
  request,
  model,
  replay,
  profiles,
  prices,
  config,
  json,
  log,
  onEvent,
}: Execution): Promise<number> {
  const { task, startUrl } = request
  const asked = runOptionsFor(request, {
    ...(model ? { model } : {}),
    ...(replay ? { replay } : {}),
    ...(config.replayWaitMs === undefined ? {} : { replayWaitMs: config.replayWaitMs }),
    maxTurns: config.maxTurns,
    ...(config.maxRunMs === undefined ? {} : { maxDurationMs: config.maxRunMs }),
    vision: config.vision,
    ...(profiles ? { profiles } : {}),
    ...(config.artifacts ? { artifacts: config.artifacts } : {}),
    handover: () =>
      createHandoverDesk({ timeoutMs: config.handoverTimeoutMs, maxHandovers: config.maxHandovers }),
  })
  const stdout = process.stdout
  // With an output schema, stdout is for the data alone (`> flights.json`); the live view moves to stderr.
  const printsData = asked.output !== undefined && !json
  const screen = printsData ? process.stderr : stdout
  // Whoever read stdout has gone (`| head`): nobody is watching, so the run stops.
  let readerGone = false
  const interactive = Boolean(process.stdin.isTTY)
  const view = json
    ? undefined
    : new TerminalView((text) => readerGone || screen.write(text), {
        tty: Boolean(screen.isTTY),
        prompts: interactive,
        color: Boolean(screen.isTTY) && screen.hasColors(),
        columns: screen.columns,
      })
  const notice = (text: string) => (view ? view.notice(text) : process.stderr.write(`${text}\n`))

  const controller = new AbortController()
  let interrupts = 0
  const onInterrupt = () => {
    interrupts++
    if (interrupts > 1) process.exit(130)
    notice('Aborting… (press Ctrl-C again to quit at once)')
    controller.abort()
  }
  process.on('SIGINT', onInterrupt)
  process.on('SIGTERM', onInterrupt)
  const onOutputError = (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE' && !readerGone) throw error
    readerGone = true
    controller.abort()
  }
  stdout.on('error', onOutputError)

  const io: PromptIo = { input: process.stdin, output: json ? process.stderr : screen, onInterrupt }
  const prompting = async <T>(question: () => Promise<T>): Promise<T> => {
    view?.pause()
    try {
      return await question()
    } finally {
      view?.resume()
    }
  }

  // Loaded once the arguments and the model are known good: a usage error never waits for Playwright.
  const [{ runAgent }, { openBrowserPool }, { openRunViewer }] = await Promise.all([
    import('../../agent/loop.ts'),
    import('../browser-pool.ts'),
    import('../run-viewer.ts'),
  ])
  const modelName = model?.name ?? 'none'
  const runId = newRunId()
  const desk = asked.handover
  // Listening from the start, so the run's browser is kept from it (as from a server's own address).
  const viewer = desk
    ? await openRunViewer(
        {
          id: runId,
          task,
          model: modelName,
          ...(startUrl === undefined ? {} : { startUrl }),
          createdAt: new Date().toISOString(),
        },
        desk,
        log,
        config.screenshots ? config.runsDir : undefined,
      )
    : undefined
  const onHandoverEvent =
    desk && viewer
      ? terminalHandover({
          desk,
          viewerUrl: viewer.url,
          ...(interactive ? { ask: (question, signal) => prompting(() => ask(question, io, signal)) } : {}),
          write: (text) => process.stderr.write(text),
        })
      : undefined
  const recorder = await openRecorder(config, log)
  const pool = openBrowserPool(config, log)
  // Loads the OpenTelemetry SDK only when the OTEL_* variables ask for traces; flushed below, Ctrl-C or not.
  const tracing = await startTracing()
  const options: RunOptions = {
    ...asked,
    ...(tracing ? { tracer: tracing.tracer } : {}),
    runId,
    modelName,
    maxEventBytes: config.maxEventBytes,
    ...artifactRunOptions(artifactKeeping(config, recorder?.store)),
    prices,
    browser: viewer
      ? (session, signal) =>
          pool.newSession(
            { ...session, deniedOrigins: [...(session.deniedOrigins ?? []), ...viewer.ownOrigins] },
            signal,
          )
      : pool.newSession,
    ...(viewer
      ? {
          onBrowser: (browser) => {
            viewer.run.browser = browser
          },
        }
      : {}),
    ...(config.screenshots
      ? {
          screenshots: {
            dir: config.runsDir,
            quality: config.screenshotQuality,
            maxWidth: config.screenshotWidth,
          },
        }
      : {}),
    // The viewer's Abort stops the run as Ctrl-C does.
    signal: viewer ? AbortSignal.any([controller.signal, viewer.run.signal]) : controller.signal,
    log,
    // Without a terminal to ask on, confirmations are denied by policy and ask_user is not offered.
    ...(interactive ? terminalReplies(io, prompting, viewer?.run) : {}),
  }

  let last: AgentEvent | undefined
  try {
    for await (const event of runAgent(options)) {
      last = event
      onEvent?.(event)
      viewer?.push(event)
      onHandoverEvent?.(event)
      recorder?.record(event, { task, model: modelName, startUrl })
      if (readerGone) continue
      if (json) stdout.write(`${JSON.stringify(event)}\n`)
      else view?.render(event)
    }
  } finally {
    view?.close()
    process.off('SIGINT', onInterrupt)
    process.off('SIGTERM', onInterrupt)
    stdout.off('error', onOutputError)
    await viewer?.close()
    await recorder?.close()
    await pool.close()
    await tracing
      ?.shutdown()
      .catch((error: unknown) => log.warn({ err: error }, 'could not export the traces'))
  }
  if (printsData && !readerGone) stdout.write(dataLine(last))
  return last?.type === 'done' ? exitCodeFor(last) : 1
}

/** The flags' request, held to the run request schema: what it refuses is a usage error, naming the field. */
export function checkedRequest(request: RunRequest & { task: string }): RunRequest & { task: string } {
  const checked = RunRequestSchema.safeParse(request)
  if (checked.success) return request
  const problems = checked.error.issues.map(
    (issue) => `${issue.path.join('.') || 'request'}: ${issue.message}`,
  )
  throw new UsageError(`The run's options are not valid: ${problems.join('; ')}.`)
}

function artifactRunOptions(keeping: ReturnType<typeof artifactKeeping>): Partial<RunOptions> {
  return keeping ? { artifactStore: keeping.store, maxArtifactBytes: keeping.maxBytes } : {}
}
