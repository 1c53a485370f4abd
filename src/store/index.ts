import { isOwnerGone } from './owner.ts'
import { SqliteRunStore } from './sqlite-store.ts'
import type { RunStore } from './types.ts'

export { ChildRunRecorder } from './child-runs.ts'
export { InvalidCursorError } from './cursor.ts'
export { EventWriter } from './event-writer.ts'
export { MemoryRunStore } from './memory-store.ts'
export * from './owner.ts'
export { SqliteRunStore } from './sqlite-store.ts'
export * from './types.ts'

/**
 * Opens the configured SQLite store (creating its folder) and marks runs whose
 * process is gone as failed.
 */
export function openRunStore(path: string, at = new Date()): { store: RunStore; interrupted: string[] } {
  const store = new SqliteRunStore(path)
  return { store, interrupted: markInterruptedRuns(store, at) }
}

/**
 * Ends the runs still `running` whose owner is gone (see isOwnerGone), as
 * `serve` does at start and `sextant runs` before it reads. Returns their ids.
 */
export function markInterruptedRuns(store: RunStore, at = new Date()): string[] {
  return store.markInterruptedRuns({ at, isOwnerGone: (owner) => isOwnerGone(owner, at) })
}
