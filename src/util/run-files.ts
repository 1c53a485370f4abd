import { rm } from 'node:fs/promises'
import { join } from 'node:path'

/**
 * Where a run's files live: `<runs dir>/<runId>/` holds its downloads and its
 * step screenshots (`steps/<n>.jpg`). Files stay out of the event stream; an
 * event names a file only by the API URL that serves it.
 */

/** A run id as newRunId makes it (or a caller's own id of the same safe alphabet): never a path. */
const safeRunId = /^[A-Za-z0-9_-]{1,100}$/

export function isSafeRunId(runId: string): boolean {
  return safeRunId.test(runId)
}

export function runFolder(runsDir: string, runId: string): string {
  if (!isSafeRunId(runId)) throw new Error(`Not a run id: ${JSON.stringify(runId.slice(0, 100))}`)
  return join(runsDir, runId)
}

export function stepScreenshotFile(runsDir: string, runId: string, step: number): string {
  return join(runFolder(runsDir, runId), 'steps', `${step}.jpg`)
}

/** The page view the model read at a step, kept beside its screenshot for viewers. */
export function stepPageViewFile(runsDir: string, runId: string, step: number): string {
  return join(runFolder(runsDir, runId), 'steps', `${step}.view.txt`)
}

/** The URL under which the HTTP API serves a step's screenshot; the `observation` event carries it. */
export function stepScreenshotUrl(runId: string, step: number): string {
  return `/v1/runs/${encodeURIComponent(runId)}/steps/${step}/screenshot`
}

/** Removes a run's folder (downloads, screenshots); a missing folder is fine. */
export async function removeRunFolder(runsDir: string, runId: string): Promise<void> {
  await rm(runFolder(runsDir, runId), { recursive: true, force: true })
}
