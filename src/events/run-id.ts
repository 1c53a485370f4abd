import { randomBytes } from 'node:crypto'

/**
 * A new run id: `run_` + a time prefix (so ids sort roughly by creation, which
 * keeps store indexes and listings local) + 64 random bits. The one format for
 * every surface that creates runs.
 */
export function newRunId(now = Date.now()): string {
  return `run_${now.toString(36)}${randomBytes(8).toString('hex')}`
}
