import { dirname, join } from 'node:path'
import type { Logger } from '../../log.ts'
import type { RunStore } from '../run-store.ts'
import { resolveProfileKey } from './profile-key.ts'
import { ProfileStore } from './profile-store.ts'

/** Where the key file goes when SEXTANT_PROFILE_KEY is not set: the data folder, beside the runs folder. */
export function profileKeyFile(runsDir = '.sextant/runs'): string {
  return join(dirname(runsDir), 'profile.key')
}

/** The profiles of `store`, sealed under the configured key (or the key file, made on first use). */
export function profilesOf(
  store: RunStore,
  settings: {
    profileKey?: string | undefined
    runsDir?: string | undefined
    maxProfileBytes?: number | undefined
  },
  log: Logger,
): ProfileStore {
  const { maxProfileBytes } = settings
  return new ProfileStore(
    store.profiles,
    () =>
      resolveProfileKey({ configured: settings.profileKey, keyFile: profileKeyFile(settings.runsDir), log }),
    maxProfileBytes === undefined ? {} : { maxBytes: maxProfileBytes },
  )
}
