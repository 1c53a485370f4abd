import type { BrowserSession, LiveFrame } from '../../browser/browser-session.ts'
import type { LiveRun } from './live-run.ts'

/** What the live view tells the metrics. */
export interface LiveViewHooks {
  /** A watcher came (+1) or went (-1). */
  onViewers?(change: 1 | -1): void
  /** The run's screencast produced a frame: counted once, however many watch it. */
  onFrame?(): void
}

/**
 * One screencast per run, shared by everyone who watches it: started by the
 * first watcher, stopped when the last leaves, so the browser makes frames
 * only while someone looks. It moves to a replaced browser (`run.browser`
 * changes) and ends every watcher's stream when the browser is let go or the
 * run ends. Frames are masked unless a person has taken the run over.
 */
export class RunScreencast {
  readonly #run: LiveRun
  readonly #hooks: LiveViewHooks
  readonly #watchers = new Set<FrameMailbox>()
  #stopWatchingBrowser: (() => void) | undefined
  #cast: AbortController | undefined

  constructor(run: LiveRun, hooks: LiveViewHooks = {}) {
    this.#run = run
    this.#hooks = hooks
    // The run lets its browser go before it ends; this also ends watchers of a run that never had one.
    void run.finished.then(() => this.#endAll())
  }

  /**
   * The run's frames until `signal` aborts or the run's browser goes. A
   * watcher gets the newest frame each time it is ready for one: a slow
   * client skips frames instead of falling behind.
   */
  async *watch(signal: AbortSignal): AsyncGenerator<LiveFrame, void, undefined> {
    const mailbox = new FrameMailbox()
    const onAbort = () => mailbox.end()
    signal.addEventListener('abort', onAbort, { once: true })
    this.#join(mailbox)
    try {
      for (let frame = await mailbox.take(); frame; frame = await mailbox.take()) yield frame
    } finally {
      signal.removeEventListener('abort', onAbort)
      this.#leave(mailbox)
    }
  }

  #join(mailbox: FrameMailbox): void {
    this.#watchers.add(mailbox)
    this.#hooks.onViewers?.(1)
    if (this.#watchers.size > 1) return
    this.#stopWatchingBrowser = this.#run.watchBrowser((browser) => this.#castFrom(browser))
    // A run whose browser is not open yet starts the cast when it opens (or ends its watchers when it ends).
    if (this.#run.browser) this.#castFrom(this.#run.browser)
  }

  #leave(mailbox: FrameMailbox): void {
    if (!this.#watchers.delete(mailbox)) return
    this.#hooks.onViewers?.(-1)
    if (this.#watchers.size > 0) return
    this.#stopWatchingBrowser?.()
    this.#stopWatchingBrowser = undefined
    this.#cast?.abort()
    this.#cast = undefined
  }

  #castFrom(browser: BrowserSession | undefined): void {
    this.#cast?.abort()
    this.#cast = undefined
    const live = browser?.live
    if (!live || this.#run.isDone) {
      this.#endAll()
      return
    }
    const cast = new AbortController()
    this.#cast = cast
    const onFrame = (frame: LiveFrame) => {
      this.#hooks.onFrame?.()
      for (const watcher of this.#watchers) watcher.put(frame)
    }
    live
      .screencast(onFrame, { masked: () => !this.#run.isTakenOver }, cast.signal)
      // A cast that ends on its own (its session closed: a dead browser about to be replaced) keeps its
      // watchers: the run's next browser, or its letting go of it, tells them what comes next.
      .catch(() => {})
  }

  #endAll(): void {
    for (const watcher of this.#watchers) watcher.end()
  }
}

/** One watcher's next frame: only the newest is kept. */
class FrameMailbox {
  #frame: LiveFrame | undefined
  #ended = false
  #wake: (() => void) | undefined

  put(frame: LiveFrame): void {
    this.#frame = frame
    this.#wakeUp()
  }

  end(): void {
    this.#ended = true
    this.#wakeUp()
  }

  /** The next frame, or undefined once the stream has ended. */
  async take(): Promise<LiveFrame | undefined> {
    while (this.#frame === undefined && !this.#ended) {
      await new Promise<void>((resolve) => {
        this.#wake = resolve
      })
    }
    if (this.#ended) return undefined
    const frame = this.#frame
    this.#frame = undefined
    return frame
  }

  #wakeUp(): void {
    const wake = this.#wake
    this.#wake = undefined
    wake?.()
  }
}
