import { describeError } from '../util/describe-error.ts'
import { isOwnerGone, ownerLeaseMs, thisProcess } from './owner.ts'
import { PostgresRunStore } from './postgres/postgres-store.ts'
import type { RunStore } from './run-store.ts'
import { SqliteRunStore } from './sqlite-store.ts'
import { StoreUnavailableError } from './store-errors.ts'

export * from '../util/step-files.ts'
export { ChildRunRecorder } from './child-runs.ts'
export { InvalidCursorError } from './cursor.ts'
export { EventWriter } from './event-writer.ts'
export { MemoryRunStore } from './memory-store.ts'
export * from './owner.ts'
export { PostgresRunStore } from './postgres/postgres-store.ts'
export { profileKeyFile, profilesOf } from './profiles/open-profiles.ts'
export { ProfileCipher, ProfileKeyError, parseProfileKey } from './profiles/profile-cipher.ts'
export { resolveProfileKey } from './profiles/profile-key.ts'
export type { ProfileInfo, ProfileRows } from './profiles/profile-rows.ts'
export * from './profiles/profile-state.ts'
export * from './profiles/profile-store.ts'
export { type RecordedRunInfo, RunRecorder } from './run-recorder.ts'
export * from './run-store.ts'
export * from './shared.ts'
export { SqliteRunStore } from './sqlite-store.ts'
export { StoreUnavailableError } from './store-errors.ts'

/** Whether SEXTANT_DB names a PostgreSQL database rather than a SQLite file. */
export function isPostgresUrl(db: string): boolean {
  return /^postgres(?:ql)?:\/\//i.test(db)
}

/**
 * Opens the configured store: PostgreSQL for a postgres:// URL (migrated
 * before this resolves), else SQLite (creating its folder). Does not mark
 * interrupted runs: see openRunStore.
 */
export async function openStore(db: string): Promise<RunStore> {
  if (!isPostgresUrl(db)) return new SqliteRunStore(db)
  const store = new PostgresRunStore(db)
  try {
    await store.ready()
  } catch (error) {
    await store.close().catch(() => {})
    throw new StoreUnavailableError(
      `Cannot open the PostgreSQL database ${withoutPassword(db)} (SEXTANT_DB): ${describeError(error)}`,
    )
  }
  return store
}

/** The URL as it may be shown: its password replaced. */
function withoutPassword(db: string): string {
  try {
    const url = new URL(db)
    if (url.password) url.password = '***'
    return url.href
  } catch {
    return 'postgres://…'
  }
}

/** How a sweep judges owners: SEXTANT_LEASE_MS, for every sweep alike. */
export interface SweepOptions {
  at?: Date
  /** An owner silent this long is gone (default ownerLeaseMs). */
  leaseMs?: number
}

/** Opens the configured store and marks runs whose process is gone as failed. */
export async function openRunStore(
  db: string,
  options: SweepOptions = {},
): Promise<{ store: RunStore; interrupted: string[] }> {
  const store = await openStore(db)
  return { store, interrupted: await markInterruptedRuns(store, options) }
}

/**
 * Ends the runs still `running` whose owner is gone (see isOwnerGone), as
 * `serve` does at start and `sextant runs` before it reads. Returns their ids.
 */
export function markInterruptedRuns(store: RunStore, options: SweepOptions = {}): Promise<string[]> {
  const leaseMs = options.leaseMs ?? ownerLeaseMs
  return store.markInterruptedRuns({
    at: options.at ?? new Date(),
    isOwnerGone: (owner) => isOwnerGone(owner, thisProcess(), leaseMs),
  })
}
