import { existsSync, writeFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { playwrightSpec } from '../../agent/tools/actions.ts'
import {
  type ArtifactKind,
  artifactKindOf,
  artifactKinds,
} from '../../browser/session/artifacts/artifact-settings.ts'
import { loadConfig } from '../../config.ts'
import { recordingOf } from '../../recording/from-events.ts'
import { isPostgresUrl, markInterruptedRuns, openStore } from '../../store/open-store.ts'
import type { RunStore, StoredRun } from '../../store/run-store.ts'
import { artifactPlace } from '../../store/shared.ts'
import { describeError } from '../../util/describe-error.ts'
import type { ArtifactStore } from '../../util/run-downloads.ts'
import { truncate } from '../../util/text.ts'
import { runsHelp, UsageError } from '../help.ts'
import { formatTable } from '../terminal/table.ts'
import { TerminalView } from '../terminal/terminal-view.ts'
import { formatCost } from '../usage-text.ts'
import { parseAge, pruneRuns } from './runs-prune.ts'

type ExportFormat = 'recording' | 'playwright' | ArtifactKind

/**
 * `sextant runs` and `sextant runs show <id>`: read the store. The one change
 * made first: runs whose process is gone are marked as `serve` marks them at
 * start, so a run whose `sextant run` died does not show as running forever.
 */
export async function runsCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      limit: { type: 'string' },
      cursor: { type: 'string' },
      json: { type: 'boolean', default: false },
      'older-than': { type: 'string' },
      format: { type: 'string' },
      output: { type: 'string', short: 'o' },
      help: { type: 'boolean', short: 'h' },
    },
  })
  if (values.help) {
    process.stdout.write(`${runsHelp}\n`)
    return 0
  }
  const [subcommand, id, ...extra] = positionals
  if (subcommand !== undefined && !['show', 'prune', 'export'].includes(subcommand))
    throw new UsageError(`Unknown "runs" subcommand "${subcommand}".`)
  if (subcommand === 'export' && (!id || extra.length))
    throw new UsageError(
      'Usage: sextant runs export <id> --format recording|playwright|trace|video|har [-o file]',
    )
  const format = subcommand === 'export' ? exportFormat(values.format) : undefined
  if (subcommand === 'show' && (!id || extra.length)) throw new UsageError('Usage: sextant runs show <id>')
  if (subcommand === 'prune' && id !== undefined)
    throw new UsageError('Usage: sextant runs prune --older-than <age>')
  const pruneAgeMs = subcommand === 'prune' ? parseAge(values['older-than']) : undefined
  const limit = values.limit === undefined ? undefined : Number(values.limit)
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1 || limit > 100)) {
    throw new UsageError(`--limit must be an integer from 1 to 100, got "${values.limit}".`)
  }

  const config = loadConfig(process.env)
  if (config.db !== ':memory:' && !isPostgresUrl(config.db) && !existsSync(config.db)) {
    process.stderr.write(`No runs recorded yet: ${config.db} does not exist.\n`)
    return subcommand === 'show' ? 1 : 0
  }
  const store = await openStore(config.db)
  try {
    await markInterrupted(store, config.leaseMs)
    if (subcommand === 'show' && id) return await show(store, id, values.json)
    if (format && id && isArtifactKind(format))
      return await exportArtifact(artifactPlace(store, config.runsDir), id, format, values.output)
    if (format && id) return await exportRun(store, id, format, values.output, config.chromium)
    if (pruneAgeMs !== undefined) return await prune(store, config.runsDir, pruneAgeMs, values.json)
    const page = await store.listRuns({
      ...(limit === undefined ? {} : { limit }),
      ...(values.cursor === undefined ? {} : { cursor: values.cursor }),
    })
    if (values.json) {
      process.stdout.write(`${JSON.stringify(page)}\n`)
      return 0
    }
    process.stdout.write(table(page.runs))
    if (page.nextCursor) process.stdout.write(`\nMore: sextant runs --cursor ${page.nextCursor}\n`)
    return 0
  } finally {
    await store.close()
  }
}

/** Marking is a courtesy: a store this user may only read is listed as it is. */
async function markInterrupted(store: RunStore, leaseMs: number): Promise<void> {
  try {
    await markInterruptedRuns(store, { leaseMs })
  } catch (error) {
    process.stderr.write(`sextant: could not mark interrupted runs (${describeError(error)})\n`)
  }
}

async function prune(store: RunStore, runsDir: string, ageMs: number, json: boolean): Promise<number> {
  const outcome = await pruneRuns(store, runsDir, ageMs)
  if (json) {
    process.stdout.write(`${JSON.stringify(outcome)}\n`)
  } else {
    const orphans = outcome.orphans.length ? ` and ${outcome.orphans.length} leftover folders` : ''
    process.stdout.write(
      `Removed ${outcome.runs.length} runs finished before ${outcome.cutoff}, with their files${orphans}.\n`,
    )
  }
  for (const failure of outcome.failures)
    process.stderr.write(`sextant: could not remove the files of ${failure}\n`)
  return outcome.failures.length ? 1 : 0
}

function exportFormat(value: string | undefined): ExportFormat {
  if (value === 'recording' || value === 'playwright' || (value !== undefined && isArtifactKind(value)))
    return value
  throw new UsageError(
    `--format must be recording, playwright, trace, video or har, got ${value === undefined ? 'none' : `"${value}"`}.`,
  )
}

function isArtifactKind(value: string): value is ArtifactKind {
  return (artifactKinds as readonly string[]).includes(value)
}

/** A run's trace, video (its first page's) or HAR, as the run kept it; a terminal gets it only into a file. */
async function exportArtifact(
  place: ArtifactStore | undefined,
  id: string,
  kind: ArtifactKind,
  output: string | undefined,
): Promise<number> {
  if (output === undefined && process.stdout.isTTY)
    throw new UsageError(`--format ${kind} writes a binary file: give -o <file>, or redirect stdout.`)
  const entry = place ? (await place.list(id)).find((file) => artifactKindOf(file.name) === kind) : undefined
  const data = entry && place ? await place.get(id, entry.name) : undefined
  if (!data) {
    process.stderr.write(
      `Run "${id}" kept no ${kind} (ask for one with sextant run --${kind}, or artifacts.${kind} in a request).\n`,
    )
    return 1
  }
  if (output === undefined) process.stdout.write(data)
  else writeFileSync(output, data)
  return 0
}

async function exportRun(
  store: RunStore,
  id: string,
  format: ExportFormat,
  output: string | undefined,
  executablePath: string | undefined,
): Promise<number> {
  if (!(await store.getRun(id))) {
    process.stderr.write(`No run with id "${id}".\n`)
    return 1
  }
  const recording = recordingOf(await store.events(id))
  const text =
    format === 'recording'
      ? `${JSON.stringify(recording, null, 2)}\n`
      : playwrightSpec(recording, executablePath ? { executablePath } : {})
  if (output === undefined) process.stdout.write(text)
  else writeFileSync(output, text)
  return 0
}

async function show(store: RunStore, id: string, json: boolean): Promise<number> {
  const run = await store.getRun(id)
  if (!run) {
    process.stderr.write(`No run with id "${id}".\n`)
    return 1
  }
  const events = await store.events(id)
  if (json) {
    process.stdout.write(`${JSON.stringify({ run, events })}\n`)
    return 0
  }
  process.stdout.write(
    `${run.id}  ${run.status}${run.reason ? ` (${run.reason})` : ''}  ${run.model}\n` +
      `created ${run.createdAt}${run.finishedAt ? ` · finished ${run.finishedAt}` : ''}\n\n`,
  )
  const view = new TerminalView((text) => process.stdout.write(text), {
    tty: false,
    color: Boolean(process.stdout.isTTY) && process.stdout.hasColors(),
    columns: process.stdout.columns,
  })
  for (const event of events) view.render(event)
  view.close()
  return 0
}

function table(runs: StoredRun[]): string {
  if (runs.length === 0) return 'No runs recorded yet.\n'
  const rows = runs.map((run) => [
    run.id,
    run.status,
    String(run.steps),
    String(run.usage.totalTokens),
    run.status === 'running' ? '' : formatCost(run.costUsd),
    run.createdAt.replace('T', ' ').slice(0, 19),
    truncate(run.task.replaceAll(/\s+/g, ' '), 60),
  ])
  return formatTable(['ID', 'STATUS', 'STEPS', 'TOKENS', 'COST', 'CREATED (UTC)', 'TASK'], rows)
}
