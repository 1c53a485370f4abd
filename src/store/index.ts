import { SqliteRunStore } from './sqlite-store.ts'
import type { RunStore } from './types.ts'

export { InvalidCursorError } from './cursor.ts'
export { EventWriter } from './event-writer.ts'
export { MemoryRunStore } from './memory-store.ts'
export { SqliteRunStore } from './sqlite-store.ts'
export * from './types.ts'

/**
 * Opens the configured SQLite store (creating its folder) and marks runs that
 * were live in a process that has since died as failed.
 */
export function openRunStore(path: string, at = new Date()): { store: RunStore; interrupted: string[] } {
  const store = new SqliteRunStore(path)
  const interrupted = store.markInterruptedRuns({ at, isOwnerAlive: isOtherProcessAlive })
  return { store, interrupted }
}

/**
 * Whether another process with this pid runs. Our own pid counts as dead: this
 * process has not started any run yet when it checks, so a run recorded under
 * its pid was left by an earlier process that had the same pid (pid 1 in a
 * container, typically).
 */
export function isOtherProcessAlive(pid: number): boolean {
  if (pid === process.pid) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
