import { readdir, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { RunStore } from '../../store/run-store.ts'
import { describeError } from '../../util/describe-error.ts'
import { isSafeRunId, removeRunFolder } from '../../util/run-files.ts'
import { UsageError } from '../help.ts'

const units: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }

/** "30d", "12h", "90m", "2w" → milliseconds. */
export function parseAge(text: string | undefined): number {
  const match = /^(\d{1,6})([mhdw])$/.exec(text?.trim() ?? '')
  const unit = match ? units[match[2] ?? ''] : undefined
  if (!match || unit === undefined) {
    throw new UsageError(
      `--older-than needs an age such as 30d, 12h, 90m or 2w, got ${text === undefined ? 'nothing' : `"${text}"`}.`,
    )
  }
  return Number(match[1]) * unit
}

export interface PruneOutcome {
  cutoff: string
  /** Runs deleted from the store (their folders went with them). */
  runs: string[]
  /** Folders left behind by runs no longer in the store (e.g. a prune that stopped halfway), removed too. */
  orphans: string[]
  /** Folders that could not be removed, with why; the runs themselves are gone from the store. */
  failures: string[]
}

/**
 * Deletes the runs that finished before `now - ageMs` from the store first,
 * then their folders, so the store never names a run whose files are gone
 * while it still lists it. Running runs are kept whatever their age.
 */
export async function pruneRuns(
  store: RunStore,
  runsDir: string,
  ageMs: number,
  now = new Date(),
): Promise<PruneOutcome> {
  const cutoff = new Date(now.getTime() - ageMs).toISOString()
  const runs = await store.deleteFinishedRuns({ finishedBefore: cutoff })
  const failures: string[] = []
  const remove = async (id: string) => {
    try {
      await removeRunFolder(runsDir, id)
    } catch (error) {
      failures.push(`${id}: ${describeError(error)}`)
    }
  }
  for (const id of runs) await remove(id)
  const orphans: string[] = []
  for (const id of await runFolders(runsDir)) {
    if (await store.getRun(id)) continue
    const modified = await stat(join(runsDir, id)).then(
      (info) => info.mtime.toISOString(),
      () => undefined,
    )
    if (modified === undefined || modified >= cutoff) continue
    await remove(id)
    orphans.push(id)
  }
  return { cutoff, runs, orphans, failures }
}

async function runFolders(runsDir: string): Promise<string[]> {
  try {
    const entries = await readdir(runsDir, { withFileTypes: true })
    return entries
      .filter((entry) => entry.isDirectory() && isSafeRunId(entry.name))
      .map((entry) => entry.name)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw error
  }
}
