import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { BrowserContext, BrowserContextOptions, Video } from 'playwright-core'
import type { Logger } from '../../../log.ts'
import { type ArtifactKind, type ArtifactSettings, artifactFileNames } from './artifact-settings.ts'

/** What a session records, as the run asked: its artifacts, and whether the trace may hold screenshots. */
export interface SessionArtifactOptions extends ArtifactSettings {
  /** False when the run types secrets: a screenshot cannot be scrubbed, and the trace's are left out. */
  traceScreenshots?: boolean
}

/** One artifact Playwright wrote, at `path` until the collection is disposed of. */
export interface ArtifactFile {
  kind: ArtifactKind
  name: string
  path: string
  bytes: number
}

/** The run's artifacts as Playwright records them (a trace, videos, a HAR), for a session that records them. */
export interface SessionArtifacts {
  /** Names what the browser does next in the trace ("step 2: click button "Save""), until the next step. */
  step(title: string): Promise<void>
  /**
   * Ends the recording: stops the trace and closes the context (which finishes the videos and the HAR),
   * then hands over the files. The session's context is closed by then; `close()` after it does the rest.
   */
  collect(): Promise<CollectedArtifacts>
}

export interface CollectedArtifacts {
  files: ArtifactFile[]
  /** Removes the files (once kept elsewhere). */
  dispose(): Promise<void>
}

/**
 * Records a run's context into Playwright's own files: a trace (`context.tracing`, each step's action a
 * group), a video per page (`recordVideo`) and a HAR (`recordHar`, bodies embedded). The files are written
 * to a folder of the session's own and handed over whole once the context is closed, which is when
 * Playwright finishes the video and the HAR.
 */
export class ArtifactRecorder {
  readonly #dir: string
  readonly #settings: SessionArtifactOptions
  readonly #videos: Video[] = []
  #context: BrowserContext | undefined
  #groupOpen = false
  #collected: Promise<CollectedArtifacts> | undefined

  private constructor(dir: string, settings: SessionArtifactOptions) {
    this.#dir = dir
    this.#settings = settings
  }

  static async prepare(settings: SessionArtifactOptions): Promise<ArtifactRecorder> {
    return new ArtifactRecorder(await mkdtemp(join(tmpdir(), 'sextant-artifacts-')), settings)
  }

  /** The context options that make Playwright record the video and the HAR. */
  contextOptions(): BrowserContextOptions {
    return {
      ...(this.#settings.video ? { recordVideo: { dir: join(this.#dir, 'pages') } } : {}),
      // Embedded, so the HAR is one file a client opens anywhere, and its bodies can be scrubbed in place.
      ...(this.#settings.har ? { recordHar: { path: this.#harPath, content: 'embed' as const } } : {}),
    }
  }

  /** The session's `artifacts`: `closeContext` closes its context alone, which finishes the video and the HAR. */
  capability(log: Logger, closeContext: () => Promise<void>): SessionArtifacts {
    return { step: (title) => this.step(title, log), collect: () => this.collect(closeContext) }
  }

  /** Whether the files were asked for: then they are the caller's to dispose of once kept. */
  get collected(): boolean {
    return this.#collected !== undefined
  }

  /** Starts the trace on the new context, and follows its pages' videos. */
  async start(context: BrowserContext, title: string): Promise<void> {
    this.#context = context
    if (this.#settings.video) {
      context.on('page', (page) => {
        const video = page.video()
        if (video) this.#videos.push(video)
      })
      for (const page of context.pages()) {
        const video = page.video()
        if (video) this.#videos.push(video)
      }
    }
    if (this.#settings.trace)
      await context.tracing.start({
        title,
        snapshots: true,
        screenshots: this.#settings.traceScreenshots ?? true,
        sources: false,
      })
  }

  /**
   * Names what follows in the trace: a group that ends when the next one starts. A trace that fails to take
   * the name is no reason to fail the step: the group is told to the log, and the action goes on.
   */
  async step(title: string, log: Logger): Promise<void> {
    const context = this.#context
    if (!this.#settings.trace || !context || this.#collected) return
    try {
      if (this.#groupOpen) await context.tracing.groupEnd()
      this.#groupOpen = false
      await context.tracing.group(title)
      this.#groupOpen = true
    } catch (error) {
      log.warn({ err: error }, 'naming a step in the trace failed')
    }
  }

  /**
   * Stops the trace, closes the context (`close`, which finishes the videos and the HAR) and hands over
   * every file written. Called once; a second call gets the same collection.
   */
  collect(close: () => Promise<void>): Promise<CollectedArtifacts> {
    this.#collected ??= this.#collect(close)
    return this.#collected
  }

  async #collect(close: () => Promise<void>): Promise<CollectedArtifacts> {
    const files: { kind: ArtifactKind; name: string; path: string }[] = []
    const context = this.#context
    if (this.#settings.trace && context) {
      const path = join(this.#dir, artifactFileNames.trace)
      if (this.#groupOpen) await context.tracing.groupEnd().catch(() => {})
      await context.tracing.stop({ path })
      files.push({ kind: 'trace', name: artifactFileNames.trace, path })
    }
    await close()
    if (this.#settings.har) files.push({ kind: 'har', name: artifactFileNames.har, path: this.#harPath })
    await mkdir(join(this.#dir, 'kept'), { recursive: true })
    for (const [index, video] of this.#videos.entries()) {
      const name = index === 0 ? artifactFileNames.video : `video-${index + 1}.webm`
      const path = join(this.#dir, 'kept', name)
      // saveAs, not path(): a browser connected over the network wrote the file on its own machine.
      await video.saveAs(path)
      files.push({ kind: 'video', name, path })
    }
    const sized = await Promise.all(
      files.map(async (file) => {
        const info = await stat(file.path).catch(() => undefined)
        return info ? { ...file, bytes: info.size } : undefined
      }),
    )
    return {
      files: sized.filter((file) => file !== undefined),
      dispose: () => this.dispose(),
    }
  }

  /** Removes the session's folder; what was kept elsewhere stays. */
  dispose(): Promise<void> {
    return rm(this.#dir, { recursive: true, force: true })
  }

  get #harPath(): string {
    return join(this.#dir, artifactFileNames.har)
  }
}
