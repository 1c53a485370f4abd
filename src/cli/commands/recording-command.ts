import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { checkRecording } from '../../agent/tools/actions.ts'
import { describeError } from '../../util/describe-error.ts'
import { recordingHelp, UsageError } from '../help.ts'

/** `sextant recording check <file>`: is this recording (perhaps edited by hand) one a replay can run? */
export async function recordingCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { help: { type: 'boolean', short: 'h' } },
  })
  if (values.help) {
    process.stdout.write(`${recordingHelp}\n`)
    return 0
  }
  const [subcommand, file, ...extra] = positionals
  if (subcommand !== 'check' || !file || extra.length > 0)
    throw new UsageError('Usage: sextant recording check <recording.json>')
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    throw new UsageError(`Cannot read ${file}: ${describeError(error)}`)
  }
  const check = checkRecording(text)
  if (!check.ok) {
    process.stdout.write(
      `${file}: not a valid recording\n${check.problems.map((line) => `  ✗ ${line}\n`).join('')}`,
    )
    return 1
  }
  const steps = check.recording.steps
  const skipped = steps.filter((step) => step.skip !== undefined).length
  const variables = Object.keys(check.recording.variables ?? {})
  process.stdout.write(
    `${file}: valid recording (version ${check.recording.version}): ${steps.length - skipped} steps to replay` +
      `${skipped ? `, ${skipped} skipped` : ''}${variables.length ? `; variables: ${variables.join(', ')}` : ''}\n` +
      check.warnings.map((line) => `  ! ${line}\n`).join(''),
  )
  return 0
}
