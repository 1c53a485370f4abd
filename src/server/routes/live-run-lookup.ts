import { type ApiError, runNotFound } from '../http/api-errors.ts'
import type { LiveRun } from '../runs/live-run.ts'

/** How a route finds a run that is live in this process: a server's RunManager, or the CLI's one run. */
export interface LiveRunLookup {
  /** The run with this id if it is live here. */
  liveRun(id: string): LiveRun | undefined
  /** Whether a run with this id exists anywhere (ended, or live elsewhere): tells 409 from 404. */
  runExists(id: string): Promise<boolean>
}

/**
 * The run live here, or the error to answer: 404 for an unknown run, else
 * the route's own conflict (`refuse`, a 409) for one that is queued, ended
 * or run by another server.
 */
export async function findLiveRun(
  lookup: LiveRunLookup,
  id: string,
  refuse: (message: string) => ApiError,
): Promise<LiveRun> {
  const run = lookup.liveRun(id)
  if (!run) {
    if (!(await lookup.runExists(id))) throw runNotFound(id)
    throw refuse(`Run ${id} is not live on this server: it is queued, finished, or run by another server.`)
  }
  if (run.isDone) throw refuse(`Run ${id} has ended.`)
  return run
}
