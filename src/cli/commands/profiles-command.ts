import { readFileSync, writeFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { loadConfig } from '../../config.ts'
import { ProfileStateSchema } from '../../server/http/profile-schemas.ts'
import { openStore } from '../../store/open-store.ts'
import { profilesOf } from '../../store/profiles/open-profiles.ts'
import { ProfileKeyError } from '../../store/profiles/profile-cipher.ts'
import { InvalidProfileNameError, type ProfileStore } from '../../store/profiles/profile-store.ts'
import { describeError } from '../../util/describe-error.ts'
import { ProfileTooLargeError } from '../../util/profile-size.ts'
import { profilesHelp, UsageError } from '../help.ts'
import { keyLog } from '../profile-option.ts'
import { formatTable } from '../terminal/table.ts'

const usage =
  'Usage: sextant profiles list | import <name> <state.json> | export <name> [-o file] | delete <name>'

/** `sextant profiles …`: the saved browser states of the configured store (SEXTANT_DB). */
export async function profilesCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      json: { type: 'boolean', default: false },
      output: { type: 'string', short: 'o' },
      help: { type: 'boolean', short: 'h' },
    },
  })
  if (values.help) {
    process.stdout.write(`${profilesHelp}\n`)
    return 0
  }
  const [subcommand = 'list', name, file, ...extra] = positionals
  const arity: Record<string, number> = { list: 0, import: 2, export: 1, delete: 1 }
  const wanted = arity[subcommand]
  const given = [name, file].filter((value) => value !== undefined).length
  if (wanted === undefined || given !== wanted || extra.length > 0) throw new UsageError(usage)
  const config = loadConfig(process.env)
  const store = await openStore(config.db)
  try {
    const profiles = profilesOf(store, config, keyLog())
    return await perform(profiles, {
      subcommand,
      name: name ?? '',
      file,
      json: values.json,
      output: values.output,
    })
  } catch (error) {
    if (error instanceof InvalidProfileNameError) throw new UsageError(error.message)
    if (error instanceof ProfileKeyError || error instanceof ProfileTooLargeError) {
      process.stderr.write(`sextant: ${error.message}\n`)
      return 1
    }
    throw error
  } finally {
    await store.close()
  }
}

interface Request {
  subcommand: string
  name: string
  file: string | undefined
  json: boolean
  output: string | undefined
}

async function perform(profiles: ProfileStore, request: Request): Promise<number> {
  const { subcommand, name } = request
  if (subcommand === 'list') {
    const list = await profiles.list()
    if (request.json) process.stdout.write(`${JSON.stringify({ profiles: list }, null, 2)}\n`)
    else if (list.length === 0) process.stdout.write('No profiles yet.\n')
    else
      process.stdout.write(
        formatTable(
          ['NAME', 'SIZE', 'UPDATED', 'LAST RUN', 'DOMAINS'],
          list.map((p) => [p.name, `${p.size} B`, p.updatedAt, p.lastRunId ?? '-', p.domains.join(', ')]),
        ),
      )
    return 0
  }
  if (subcommand === 'import') {
    await profiles.put(name, readState(request.file ?? ''))
    process.stdout.write(`Imported profile "${name}".\n`)
    return 0
  }
  if (subcommand === 'delete') {
    if (await profiles.delete(name)) {
      process.stdout.write(`Deleted profile "${name}".\n`)
      return 0
    }
    process.stderr.write(`sextant: no profile named "${name}".\n`)
    return 1
  }
  const state = await profiles.load(name)
  if (!state) {
    process.stderr.write(`sextant: no profile named "${name}".\n`)
    return 1
  }
  const text = `${JSON.stringify(state, null, 2)}\n`
  // Cookie values: a file only its owner may read.
  if (request.output) writeFileSync(request.output, text, { mode: 0o600 })
  else process.stdout.write(text)
  return 0
}

function readState(file: string) {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    throw new UsageError(`Cannot read ${file}: ${describeError(error)}`)
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    throw new UsageError(`${file} is not JSON: ${describeError(error)}`)
  }
  const parsed = ProfileStateSchema.safeParse(json)
  if (!parsed.success)
    throw new UsageError(
      `${file} is not a Playwright storage state: ${parsed.error.issues[0]?.message ?? ''}`,
    )
  return parsed.data
}
