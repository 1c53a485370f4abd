import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, extname, join } from 'node:path'
import type { Download, Page, Response } from 'playwright-core'
import { DeadlineError, withDeadline } from '../../util/deadline.ts'
import { describeError } from '../../util/describe-error.ts'
import { watchDownloadProgress } from './download-progress.ts'
import type { NoteQueue } from './notes.ts'

/** Default bound on one download: a bigger file is cancelled, not saved. */
export const defaultMaxDownloadBytes = 50 * 1024 * 1024

/**
 * Saves a run's downloads into its folder and reports each one. A download
 * over the cap is cancelled: at once when its size is declared, else as it
 * grows past the cap, and nothing of it is left on disk (neither the
 * browser's partial file nor a copy here).
 */
export class DownloadSaver {
  readonly #pending = new Set<Promise<void>>()
  readonly #notes: NoteQueue
  readonly #runDir: string | undefined
  readonly #maxBytes: number
  readonly #keep: ((name: string, path: string) => Promise<void>) | undefined
  /** Declared sizes (Content-Length) of recent responses by URL: a download's size before it arrives. */
  readonly #declared = new Map<string, number>()
  /** Downloads in progress by URL, so one seen growing past the cap is cancelled there. */
  readonly #active = new Map<string, Download>()
  /** How big downloads cut off as they grew past the cap are: declared, or received when cut off; by URL. */
  readonly #cutOff = new Map<string, string>()
  #folder: Promise<string> | undefined

  constructor(
    options: {
      runDir?: string | undefined
      maxDownloadBytes?: number | undefined
      keepDownload?: ((name: string, path: string) => Promise<void>) | undefined
    },
    notes: NoteQueue,
  ) {
    this.#runDir = options.runDir
    this.#notes = notes
    this.#maxBytes = options.maxDownloadBytes ?? defaultMaxDownloadBytes
    this.#keep = options.keepDownload
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
    const unwatchProgress = watchDownloadProgress(page, this.#maxBytes, (url, received, total) => {
      if (this.#cutOff.size >= 100) this.#cutOff.clear()
      this.#cutOff.set(url, total > 0 ? formatSize(total) : `${formatSize(received)} when cut off`)
      void this.#active
        .get(url)
        ?.cancel()
        .catch(() => {})
    })
    return () => {
      page.off('download', onDownload)
      page.off('response', onResponse)
      unwatchProgress()
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

  #refuse(name: string, size: string): void {
    this.#notes.warn(
      'download_too_large',
      `The download of ${JSON.stringify(name)} (${size}) was cancelled: it is over the ${formatSize(this.#maxBytes)} limit (maxDownloadBytes).`,
    )
  }

  /** The download was cut off as it grew past the cap: it is let go, and its partial file with it. */
  async #refuseCutOff(download: Download, name: string, target: string | undefined): Promise<boolean> {
    const size = this.#cutOff.get(download.url())
    if (size === undefined) return false
    this.#cutOff.delete(download.url())
    await download.cancel().catch(() => {})
    await download.delete().catch(() => {})
    if (target) await rm(target, { force: true })
    this.#refuse(name, size)
    return true
  }

  async #save(download: Download): Promise<void> {
    const name = safeName(download.suggestedFilename())
    const declared = this.#declared.get(download.url())
    if (declared !== undefined) {
      this.#declared.delete(download.url())
      await download.cancel().catch(() => {})
      await download.delete().catch(() => {})
      this.#refuse(name, formatSize(declared))
      return
    }
    this.#active.set(download.url(), download)
    let target: string | undefined
    try {
      if (await this.#refuseCutOff(download, name, undefined)) return
      const folder = await this.#folderPath()
      const path = await freePath(folder, name)
      target = path
      await download.saveAs(path)
      // The copy is in the run's folder now: the browser's own is not kept beside it.
      await download.delete().catch(() => {})
      if (await this.#refuseCutOff(download, name, path)) return
      const { size } = await stat(path)
      if (size > this.#maxBytes) {
        // Finished before its progress was seen past the cap: caught once whole, and not kept.
        await rm(path, { force: true })
        this.#refuse(name, formatSize(size))
        return
      }
      this.#notes.push(`Downloaded ${JSON.stringify(name)} (${formatSize(size)}) to ${path}.`)
      await this.#keep?.(basename(path), path).catch((error: unknown) => {
        this.#notes.push(
          `The download ${JSON.stringify(basename(path))} could not be kept: ${describeError(error)}`,
        )
      })
    } catch (error) {
      if (await this.#refuseCutOff(download, name, target)) return
      const reason = (await download.failure().catch(() => null)) ?? describeError(error)
      this.#notes.push(`The download of ${JSON.stringify(name)} failed: ${reason.split('\n')[0]}`)
    } finally {
      if (this.#active.get(download.url()) === download) this.#active.delete(download.url())
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
