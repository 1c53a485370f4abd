import type { AgentEvent } from '../events/events.ts'
import { isSameOwner, type RunOwner } from './owner.ts'
import type { RunStatus } from './run-store.ts'
import { RunFencedError } from './store-errors.ts'

/**
 * The fence every store puts on a server's writes for a run: only its owner
 * writes, and only while the run is running. A run another server ended (its
 * owner's lease lapsed) or claimed refuses the old owner's writes, which
 * are then reported (RunFencedError), never dropped in silence. The SQL
 * stores check it in the statement that writes, under the run's row lock.
 */

/** What a store knows of a run, to fence a write. */
export interface FencedRun {
  status: RunStatus
  owner: RunOwner
}

export function isOwnedBy(run: FencedRun, writer: RunOwner): boolean {
  return run.status === 'running' && isSameOwner(run.owner, writer)
}

/**
 * Whether `writer` may record this outcome: it owns the run, or ended it so
 * already (PostgreSQL ends a run with its `done` event; a retry finds it ended).
 */
export function mayFinish(
  run: FencedRun & { reason?: string | undefined; finishedAt?: string | undefined },
  writer: RunOwner,
  outcome: { reason: string; finishedAt: string },
): boolean {
  if (!isSameOwner(run.owner, writer)) return false
  return run.status === 'running' || (run.reason === outcome.reason && run.finishedAt === outcome.finishedAt)
}

/**
 * Splits a batch written as `writer` into the events to store and the runs
 * refused. Unknown runs are skipped, as ever. An event stored already, the
 * same, is not a refusal: a retry of a write whose answer was lost (a `done`
 * that ended the run) finds it there.
 */
export function fenceBatch(
  events: readonly AgentEvent[],
  writer: RunOwner,
  runOf: (runId: string) => FencedRun | undefined,
  isStored: (event: AgentEvent, data: string) => boolean,
): { write: AgentEvent[]; refused: string[] } {
  /** Per run: owned by the writer, or null when the store has no such run. */
  const owned = new Map<string, boolean | null>()
  const write: AgentEvent[] = []
  const refused = new Set<string>()
  for (const event of events) {
    let mine = owned.get(event.runId)
    if (mine === undefined) {
      const run = runOf(event.runId)
      mine = run === undefined ? null : isOwnedBy(run, writer)
      owned.set(event.runId, mine)
    }
    if (mine === null) continue
    if (mine) write.push(event)
    else if (!isStored(event, JSON.stringify(event))) refused.add(event.runId)
  }
  return { write, refused: [...refused] }
}

/** Throws RunFencedError when any run was refused. */
export function throwIfRefused(refused: readonly string[]): void {
  if (refused.length > 0) throw new RunFencedError(refused)
}
