import { randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import type { Logger } from '../../log.ts'
import { ProfileKeyError, parseProfileKey } from './profile-cipher.ts'

/**
 * Servers sharing a PostgreSQL store share its profiles, so they need one
 * key: a key file of each server's own would seal profiles no other server
 * can open, or even re-import over.
 */
export class ProfileKeyRequiredError extends ProfileKeyError {
  override name = 'ProfileKeyRequiredError'
  constructor() {
    super(
      'Profiles on a shared PostgreSQL store (SEXTANT_DB=postgres://…) need one key on every server: set SEXTANT_PROFILE_KEY to the same 32-byte key on each (64 hex digits, e.g. from `openssl rand -hex 32`, or base64). Without it each server would seal profiles with a key file of its own, which the others cannot read.',
    )
  }
}

/**
 * The key profiles are sealed with: `configured` (SEXTANT_PROFILE_KEY) when
 * set, else the key file, created on first use with a fresh random key that
 * only its owner may read (0600), and logged so that it can be backed up.
 */
export function resolveProfileKey(options: {
  configured?: string | undefined
  keyFile: string
  log: Logger
}): Buffer {
  if (options.configured !== undefined) {
    const key = parseProfileKey(options.configured)
    if (!key) throw new ProfileKeyError('SEXTANT_PROFILE_KEY must be 32 bytes: 64 hex digits or base64.')
    return key
  }
  const existing = readKeyFile(options.keyFile)
  if (existing) return existing
  mkdirSync(dirname(options.keyFile), { recursive: true })
  try {
    // 'wx': two processes creating it at once keep one key, the first one written.
    writeFileSync(options.keyFile, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' })
    options.log.info(
      { keyFile: options.keyFile },
      `created the profile key file ${options.keyFile}; back it up`,
    )
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  }
  const created = readKeyFile(options.keyFile)
  if (!created)
    throw new ProfileKeyError(`The profile key file ${options.keyFile} does not hold a 32-byte key.`)
  return created
}

function readKeyFile(path: string): Buffer | undefined {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
  const key = parseProfileKey(text)
  if (!key) throw new ProfileKeyError(`The profile key file ${path} does not hold a 32-byte key.`)
  return key
}
