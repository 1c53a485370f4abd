import { pino } from 'pino'
import type { RunProfiles } from '../agent/run/profile-save.ts'
import { profileSaveModes } from '../agent/run/profile-save.ts'
import type { RunRequest } from '../agent/run/run-request-fields.ts'
import { type Config, ConfigError } from '../config.ts'
import { createLogger } from '../log.ts'
import { openStore } from '../store/open-store.ts'
import { profilesOf } from '../store/profiles/open-profiles.ts'
import { ProfileKeyRequiredError } from '../store/profiles/profile-key.ts'
import { profileNamePattern, profileNameRule } from '../util/profile-name.ts'
import { UsageError } from './help.ts'

/**
 * `--profile name [--profile-save when]`: the run's profile options, over the
 * configured store. Unlike the run's record, a profile is part of the run: a
 * store that cannot open stops the command before any browser starts.
 */
export async function openRunProfile(
  name: string | undefined,
  save: string | undefined,
  config: Config,
): Promise<
  | { request: Pick<RunRequest, 'profile' | 'profileSave'>; profiles: RunProfiles; close(): Promise<void> }
  | undefined
> {
  if (name === undefined) {
    if (save !== undefined) throw new UsageError('--profile-save needs --profile.')
    return undefined
  }
  if (!profileNamePattern.test(name))
    throw new UsageError(`--profile must be a profile name (${profileNameRule}), got "${name}".`)
  const profileSave = profileSaveModes.find((mode) => mode === (save ?? 'success'))
  if (!profileSave) throw new UsageError(`--profile-save must be success, always or never, got "${save}".`)
  const store = await openStore(config.db)
  const profiles = profilesOf(store, config, keyLog())
  try {
    // Refused before the browser opens: a shared store without SEXTANT_PROFILE_KEY says what to set.
    profiles.checkKey()
  } catch (error) {
    await store.close()
    if (error instanceof ProfileKeyRequiredError) throw new ConfigError([error.message])
    throw error
  }
  return { request: { profile: name, profileSave }, profiles, close: () => store.close() }
}

/** The key file's creation is said on stderr whatever the log level: it must be backed up. */
export function keyLog() {
  return createLogger({ level: 'info', destination: pino.destination({ fd: 2, sync: true }) })
}
