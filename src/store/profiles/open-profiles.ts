import { dirname, join } from 'node:path'
import type { Logger } from '../../log.ts'
import type { RunStore } from '../run-store.ts'
import { isSharedStore } from '../shared.ts'
import { ProfileKeyRequiredError, resolveProfileKey } from './profile-key.ts'
import { ProfileStore } from './profile-store.ts'

/** Where the key file goes when SEXTANT_PROFILE_KEY is not set: the data folder, beside the runs folder. */
export function profileKeyFile(runsDir = '.sextant/runs'): string {
  return join(dirname(runsDir), 'profile.key')
}

/**
 * The profiles of `store`, sealed under the configured key (or the key file,
 * made on first use). A shared store has no key file: without
 * SEXTANT_PROFILE_KEY every use of a profile is refused (ProfileKeyRequiredError).
 */
export function profilesOf(
  store: RunStore,
  settings: {
    profileKey?: string | undefined
    runsDir?: string | undefined
    maxProfileBytes?: number | undefined
  },
  log: Logger,
): ProfileStore {
  const { profileKey, maxProfileBytes } = settings
  return new ProfileStore(
    store.profiles,
    () => {
      if (profileKey === undefined && isSharedStore(store)) throw new ProfileKeyRequiredError()
      return resolveProfileKey({ configured: profileKey, keyFile: profileKeyFile(settings.runsDir), log })
    },
    maxProfileBytes === undefined ? {} : { maxBytes: maxProfileBytes },
  )
}
