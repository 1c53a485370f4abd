import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, extname, join } from 'node:path'
import type { Download, Page, Response } from 'playwright-core'
import { DeadlineError, withDeadline } from '../../util/deadline.ts'
import { describeError } from '../../util/describe-error.ts'
import type { NoteQueue } from './notes.ts'

/** Default bound on one download: a bigger file is cancelled, not saved. */
export const defaultMaxDownloadBytes = 50 * 1024 * 1024

/** Saves a run's downloads into its folder and reports each one; a download over the cap is cancelled. */
export class DownloadSaver {
  readonly #pending = new Set<Promise<void>>()
  readonly #notes: NoteQueue
  readonly #runDir: string | undefined
  readonly #maxBytes: number
  readonly #keep: ((name: string, path: string) => Promise<void>) | undefined
  /** Declared sizes (Content-Length) of recent responses by URL: a download's size before it arrives. */
  readonly #declared = new Map<string, number>()
  #folder: Promise<string> | undefined

  constructor(
    runDir: string | undefined,
    notes: NoteQueue,
    maxBytes = defaultMaxDownloadBytes,
    keep?: (name: string, path: string) => Promise<void>,
  ) {
    this.#runDir = runDir
    this.#notes = notes
    this.#maxBytes = maxBytes
    this.#keep = keep
  }

  watch(page: Page): () => void {
    const onDownload = (download: Download) => {
      const saving = this.#save(download).finally(() => this.#pending.delete(saving))
      this.#pending.add(saving)
    }
    const onResponse = (response: Response) => {
      const length = Number(response.headers()['content-length'])
      if (!Number.isFinite(length) || length <= this.#maxBytes) return
      if (this.#declared.size >= 100) this.#declared.clear()
      this.#declared.set(response.url(), length)
    }
    page.on('download', onDownload)
    page.on('response', onResponse)
    return () => {
      page.off('download', onDownload)
      page.off('response', onResponse)
    }
  }

  /** Waits up to `ms` for downloads in progress, so a finished download is in this observation's notes. */
  async settle(ms: number, signal: AbortSignal): Promise<void> {
    if (this.#pending.size === 0) return
    try {
      await withDeadline(Promise.allSettled([...this.#pending]), ms, signal, 'downloads')
    } catch (error) {
      // A download still running after `ms` is reported by a later observation.
      if (!(error instanceof DeadlineError)) throw error
    }
  }

  #folderPath(): Promise<string> {
    const runDir = this.#runDir
    this.#folder ??= runDir
      ? mkdir(join(runDir, 'downloads'), { recursive: true }).then(() => join(runDir, 'downloads'))
      : mkdtemp(join(tmpdir(), 'sextant-downloads-'))
    return this.#folder
  }

  #refuse(name: string, size: number): void {
    this.#notes.warn(
      'download_too_large',
      `The download of ${JSON.stringify(name)} (${formatSize(size)}) was cancelled: it is over the ${formatSize(this.#maxBytes)} limit (maxDownloadBytes).`,
    )
  }

  async #save(download: Download): Promise<void> {
    const name = safeName(download.suggestedFilename())
    const declared = this.#declared.get(download.url())
    if (declared !== undefined) {
      this.#declared.delete(download.url())
      await download.cancel().catch(() => {})
      await download.delete().catch(() => {})
      this.#refuse(name, declared)
      return
    }
    try {
      const folder = await this.#folderPath()
      const target = await freePath(folder, name)
      await download.saveAs(target)
      const { size } = await stat(target)
      if (size > this.#maxBytes) {
        // No declared size (a chunked response): caught once it is whole, and not kept.
        await rm(target, { force: true })
        await download.delete().catch(() => {})
        this.#refuse(name, size)
        return
      }
      this.#notes.push(`Downloaded ${JSON.stringify(name)} (${formatSize(size)}) to ${target}.`)
      await this.#keep?.(basename(target), target).catch((error: unknown) => {
        this.#notes.push(
          `The download ${JSON.stringify(basename(target))} could not be kept: ${describeError(error)}`,
        )
      })
    } catch (error) {
      const reason = (await download.failure().catch(() => null)) ?? describeError(error)
      this.#notes.push(`The download of ${JSON.stringify(name)} failed: ${reason.split('\n')[0]}`)
    }
  }
}

function safeName(suggested: string): string {
  const name = basename(suggested.replace(/\\/g, '/'))
    .replace(/\p{Cc}/gu, '')
    .trim()
  return name && name !== '.' && name !== '..' ? name.slice(0, 200) : 'download'
}

async function freePath(folder: string, name: string): Promise<string> {
  const extension = extname(name)
  const stem = name.slice(0, name.length - extension.length)
  for (let n = 1; ; n++) {
    const candidate = join(folder, n === 1 ? name : `${stem} (${n})${extension}`)
    const exists = await stat(candidate).then(
      () => true,
      () => false,
    )
    if (!exists) return candidate
  }
}

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`
}
