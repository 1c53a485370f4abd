import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { pino } from 'pino'
import { prepareRun, ReplayError } from '../../agent/replay/replay-setup.ts'
import { checkRecording } from '../../agent/tools/actions.ts'
import { loadConfig } from '../../config.ts'
import type { AgentEvent } from '../../events/events.ts'
import { createLogger } from '../../log.ts'
import { ModelConfigError } from '../../model/model-errors.ts'
import { loadPriceTable } from '../../model/prices.ts'
import { modelSettingsFrom, type ResolvedModel, resolveModel } from '../../model/resolve.ts'
import { recordingOf } from '../../recording/from-events.ts'
import type { Recording } from '../../recording/schema.ts'
import { isPostgresUrl, openStore } from '../../store/open-store.ts'
import { browserFlagOptions, readBrowserFlags } from '../browser-flags.ts'
import { replayHelp, UsageError } from '../help.ts'
import { readInstructions, readSecrets, readVariables } from '../run-flags.ts'
import { checkedRequest, execute, optionalTraceparent } from './run-command.ts'

/**
 * `sextant replay <file|runId>`: runs a recording again without the model.
 * With a model configured, steps the page no longer allows are redone by it;
 * `--save` writes the run's own recording (the healed one) to a file.
 */
export async function replayCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      var: { type: 'string', multiple: true },
      secret: { type: 'string', multiple: true },
      url: { type: 'string' },
      save: { type: 'string' },
      model: { type: 'string' },
      json: { type: 'boolean', default: false },
      headed: { type: 'boolean' },
      'no-handover': { type: 'boolean' },
      traceparent: { type: 'string' },
      instructions: { type: 'string' },
      ...browserFlagOptions,
      help: { type: 'boolean', short: 'h' },
    },
  })
  if (values.help) {
    process.stdout.write(`${replayHelp}\n`)
    return 0
  }
  const [source, ...extra] = positionals
  if (!source || extra.length > 0)
    throw new UsageError('Usage: sextant replay <recording.json|runId> [options]')
  // Checked before the recording is looked for: a bad flag is named whatever the source.
  const traced = checkedRequest({ task: source, ...optionalTraceparent(values.traceparent) })
  const variables = readVariables(values.var ?? [])
  // Over the recording's own: without them the replay runs in the context and with the instructions recorded.
  const browser = readBrowserFlags(values)
  const instructions = values.instructions === undefined ? undefined : readInstructions(values.instructions)
  const secrets = readSecrets(values.secret ?? [], process.env)
  const config = loadConfig(process.env, {
    ...(values.model === undefined ? {} : { model: values.model }),
    ...(values.headed === undefined ? {} : { headed: values.headed }),
  })
  const recording = await loadRecording(source, config.db)
  try {
    prepareRun({ task: recording.task, replay: recording, variables, canHeal: false })
  } catch (error) {
    if (error instanceof ReplayError) throw new UsageError(error.message)
    throw error
  }
  const model = modelForReplay(values.model, config)
  if (!model && !values.json)
    process.stderr.write('No model configured: the replay cannot redo a step the page no longer allows.\n')
  const startUrl = values.url ?? recording.startUrl
  const log = config.logLevel
    ? createLogger({ level: config.logLevel, destination: pino.destination({ fd: 2, sync: true }) })
    : createLogger({ level: 'silent' })
  const events: AgentEvent[] = []
  const code = await execute({
    request: checkedRequest({
      task: recording.task,
      ...(startUrl === undefined ? {} : { startUrl }),
      ...(secrets === undefined ? {} : { secrets }),
      variables,
      ...(browser === undefined ? {} : { browser }),
      ...(instructions === undefined ? {} : { instructions }),
      ...(values['no-handover'] ? { handover: false } : {}),
      ...(traced.traceparent === undefined ? {} : { traceparent: traced.traceparent }),
    }),
    replay: recording,
    model,
    prices: loadPriceTable(config.prices),
    config,
    json: values.json,
    log,
    onEvent: (event) => events.push(event),
  })
  if (values.save !== undefined) save(values.save, events)
  return code
}

/** The recording a replay runs: a file (checked), or the recording of a stored run. */
async function loadRecording(source: string, db: string): Promise<Recording> {
  if (existsSync(source)) {
    const check = checkRecording(readFileSync(source, 'utf8'))
    if (!check.ok)
      throw new UsageError(`${source} is not a valid recording:\n  ${check.problems.join('\n  ')}`)
    return check.recording
  }
  if (!/^run_\w+$/.test(source))
    throw new UsageError(`No recording file "${source}" (and it is not a run id).`)
  if (!isPostgresUrl(db) && db !== ':memory:' && !existsSync(db))
    throw new UsageError(`No run "${source}": ${db} does not exist.`)
  const store = await openStore(db)
  try {
    if (!(await store.getRun(source))) throw new UsageError(`No run with id "${source}".`)
    return recordingOf(await store.events(source))
  } finally {
    await store.close()
  }
}

function modelForReplay(
  name: string | undefined,
  config: ReturnType<typeof loadConfig>,
): ResolvedModel | undefined {
  try {
    return resolveModel(undefined, modelSettingsFrom(config))
  } catch (error) {
    // A model asked for by name must work; without one configured the replay runs without it.
    if (name === undefined && error instanceof ModelConfigError && error.code === 'no_model') return undefined
    throw error
  }
}

/** Writes the run's own recording, when the run got to its end; a failed replay is not a recording to keep. */
function save(file: string, events: AgentEvent[]): void {
  const done = events.findLast((event) => event.type === 'done')
  if (done?.type !== 'done' || done.reason !== 'model_stop') {
    process.stderr.write(
      `Not saved to ${file}: the replay did not finish (${done?.type === 'done' ? done.reason : 'no end'}).\n`,
    )
    return
  }
  writeFileSync(file, `${JSON.stringify(recordingOf(events), null, 2)}\n`)
  process.stderr.write(`Saved the recording to ${file}.\n`)
}
