import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { stepPageViewFile, stepScreenshotFile } from './run-files.ts'

/** A step's kept files: the screenshot a person sees and the page view the model read. */
export type StepFileKind = 'screenshot' | 'page-view'

export interface StepFiles {
  screenshot: Uint8Array
  pageView: string
}

/**
 * Where runs keep their steps' files, behind one interface: a folder on this
 * machine (SQLite, the CLI, the library), or the shared store (PostgreSQL),
 * where they outlive the server that made them and any server serves them.
 */
export interface StepFileStore {
  put(runId: string, step: number, files: StepFiles): Promise<void>
  /** The file's bytes; undefined while it is not (or never will be) kept. */
  get(runId: string, step: number, kind: StepFileKind): Promise<Uint8Array | undefined>
}

/** The most a shared store keeps of one step file; a bigger one is refused (a warning in the run). */
export const maxStepFileBytes = 4 * 1024 * 1024

/** A step file over maxStepFileBytes. */
export class StepFileTooLargeError extends Error {
  override name = 'StepFileTooLargeError'
  constructor(kind: StepFileKind, bytes: number) {
    super(`The step's ${kind} is ${bytes} bytes, over the ${maxStepFileBytes} the store keeps of one file.`)
  }
}

/** Step files as they have always been kept: `<runs dir>/<runId>/steps/<n>.jpg` and `<n>.view.txt`. */
export function folderStepFiles(dir: string): StepFileStore {
  const fileOf = (runId: string, step: number, kind: StepFileKind) =>
    kind === 'screenshot' ? stepScreenshotFile(dir, runId, step) : stepPageViewFile(dir, runId, step)
  return {
    async put(runId, step, files) {
      const screenshot = fileOf(runId, step, 'screenshot')
      await mkdir(dirname(screenshot), { recursive: true })
      await writeFile(screenshot, files.screenshot)
      await writeFile(fileOf(runId, step, 'page-view'), files.pageView)
    },
    async get(runId, step, kind) {
      try {
        return await readFile(fileOf(runId, step, kind))
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
        throw error
      }
    },
  }
}
