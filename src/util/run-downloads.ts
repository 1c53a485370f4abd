import { copyFile, mkdir, readdir, readFile, stat } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { runFolder } from './run-files.ts'

/** A file a run's browser downloaded, as a client lists it. */
export interface DownloadEntry {
  name: string
  bytes: number
}

/**
 * Where a run's downloads are kept, behind one interface: the run's folder on
 * the machine that ran it (SQLite, the CLI), or the shared store (PostgreSQL),
 * where any server serves them after the server that ran the run is gone.
 * The browser saves each download to a file first; `put` keeps that file.
 */
export interface DownloadStore {
  /** Keeps the file at `path` as the run's download `name` (a name a run has once). */
  put(runId: string, name: string, path: string): Promise<void>
  /** The run's downloads, oldest first. */
  list(runId: string): Promise<DownloadEntry[]>
  /** The download's bytes; undefined when the run has none of that name. */
  get(runId: string, name: string): Promise<Uint8Array | undefined>
}

/** A download's name as the browser saves it: a plain file name, never a path. */
export function isDownloadName(name: string): boolean {
  return name.length > 0 && name.length <= 255 && name !== '.' && name !== '..' && !/[/\\\p{Cc}]/u.test(name)
}

/**
 * A run's artifacts (its trace, videos, HAR) are kept as its downloads are, each a named file of the run:
 * the same store, in a place of their own.
 */
export type ArtifactStore = DownloadStore

/** Downloads as they have always been kept: `<runs dir>/<runId>/downloads/<name>`. */
export function folderDownloads(runsDir: string): DownloadStore {
  return folderFiles(runsDir, 'downloads')
}

/** Artifacts beside them: `<runs dir>/<runId>/artifacts/<name>`, removed with the run's folder. */
export function folderArtifacts(runsDir: string): ArtifactStore {
  return folderFiles(runsDir, 'artifacts')
}

function folderFiles(runsDir: string, kind: 'downloads' | 'artifacts'): DownloadStore {
  const folderOf = (runId: string) => join(runFolder(runsDir, runId), kind)
  return {
    async put(runId, name, path) {
      const target = join(folderOf(runId), name)
      // The browser saves into this very folder: the file is kept already.
      if (resolve(path) === resolve(target)) return
      await mkdir(folderOf(runId), { recursive: true })
      await copyFile(path, target)
    },
    async list(runId) {
      const entries = await readdir(folderOf(runId), { withFileTypes: true }).catch(ifMissing([]))
      const files = await Promise.all(
        entries
          .filter((entry) => entry.isFile())
          .map(async (entry) => {
            const info = await stat(join(folderOf(runId), entry.name))
            return { name: entry.name, bytes: info.size, at: info.mtimeMs }
          }),
      )
      return files.sort((a, b) => a.at - b.at).map(({ name, bytes }) => ({ name, bytes }))
    },
    async get(runId, name) {
      if (!isDownloadName(name)) return undefined
      return readFile(join(folderOf(runId), name)).catch(ifMissing(undefined))
    },
  }
}

function ifMissing<T>(value: T): (error: unknown) => T {
  return (error) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return value
    throw error
  }
}
