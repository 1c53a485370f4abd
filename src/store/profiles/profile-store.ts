import { profileNamePattern, profileNameRule } from '../../util/profile-name.ts'
import { ProfileTooLargeError } from '../../util/profile-size.ts'
import { ProfileCipher } from './profile-cipher.ts'
import type { ProfileInfo, ProfileRows } from './profile-rows.ts'
import { emptyProfileState, mergeProfileState, type ProfileState, profileDomains } from './profile-state.ts'

export class InvalidProfileNameError extends Error {
  override name = 'InvalidProfileNameError'
}

/** A profile's bound by default (SEXTANT_MAX_PROFILE_BYTES): 5 MB, decimal. */
export const defaultMaxProfileBytes = 5_000_000

export interface ProfileStoreOptions {
  now?: () => Date
  /** Bytes of a profile's state (its JSON, before sealing) the store keeps at most (default 5 MB). */
  maxBytes?: number
}

function checkName(name: string): void {
  if (!profileNamePattern.test(name))
    throw new InvalidProfileNameError(`"${name}" is not a profile name: use ${profileNameRule}.`)
}

/**
 * Profiles, sealed before they reach the store and opened after they leave
 * it. The key is asked for on first use only (`key`), so a server that never
 * uses a profile never creates a key file.
 */
export class ProfileStore {
  readonly #rows: ProfileRows
  readonly #key: () => Buffer
  #cipher: ProfileCipher | undefined
  readonly #now: () => Date
  readonly #maxBytes: number

  constructor(rows: ProfileRows, key: () => Buffer, options: ProfileStoreOptions = {}) {
    this.#rows = rows
    this.#key = key
    this.#now = options.now ?? (() => new Date())
    this.#maxBytes = options.maxBytes ?? defaultMaxProfileBytes
  }

  /** Bytes of a profile's state the store keeps at most. */
  get maxBytes(): number {
    return this.#maxBytes
  }

  get #sealer(): ProfileCipher {
    this.#cipher ??= new ProfileCipher(this.#key())
    return this.#cipher
  }

  /** Throws ProfileKeyError when profiles cannot be sealed or opened here (no usable key), before a run starts. */
  checkKey(): void {
    void this.#sealer
  }

  list(): Promise<ProfileInfo[]> {
    return this.#rows.list()
  }

  async info(name: string): Promise<ProfileInfo | undefined> {
    return (await this.list()).find((profile) => profile.name === name)
  }

  /** The profile's state now; undefined when there is no such profile. Throws ProfileKeyError under a wrong key. */
  async load(name: string): Promise<ProfileState | undefined> {
    checkName(name)
    const sealed = await this.#rows.get(name)
    return sealed === undefined ? undefined : (JSON.parse(this.#sealer.open(name, sealed)) as ProfileState)
  }

  /**
   * Saves what a run ended with, merged into what is stored now (see
   * mergeProfileState): `base` is the state the run started from. Throws
   * ProfileTooLargeError, writing nothing, when the merged state is over the bound.
   */
  save(name: string, saved: ProfileState, options: { base: ProfileState; runId?: string }): Promise<void> {
    return this.#write(name, (stored) => mergeProfileState(stored, options.base, saved), options.runId)
  }

  /** Replaces the profile's state (an import), creating it when new; ProfileTooLargeError as for save. */
  put(name: string, state: ProfileState): Promise<void> {
    return this.#write(name, () => state, undefined)
  }

  delete(name: string): Promise<boolean> {
    checkName(name)
    return this.#rows.delete(name)
  }

  #write(
    name: string,
    next: (stored: ProfileState) => ProfileState,
    runId: string | undefined,
  ): Promise<void> {
    checkName(name)
    const sealer = this.#sealer
    return this.#rows.update(name, (sealed) => {
      const stored =
        sealed === undefined ? emptyProfileState : (JSON.parse(sealer.open(name, sealed)) as ProfileState)
      const state = next(stored)
      const plain = JSON.stringify(state)
      const size = Buffer.byteLength(plain)
      // Thrown inside the update: its transaction is rolled back, so the stored profile stays as it was.
      if (size > this.#maxBytes) throw new ProfileTooLargeError(name, size, this.#maxBytes)
      return {
        name,
        data: sealer.seal(name, plain),
        domains: profileDomains(state),
        size,
        updatedAt: this.#now().toISOString(),
        ...(runId === undefined ? {} : { lastRunId: runId }),
      }
    })
  }
}
