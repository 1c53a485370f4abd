import type { Page } from 'playwright-core'
import type { Screenshot, ScreenshotOptions } from './screenshot.ts'

/**
 * The step picture taken while the observation settles and builds its view,
 * rather than after both. A run asks for the same picture after every
 * observation (its settings do not change), so once it has asked, each
 * observation starts that picture at the first frame drawn after the action,
 * while the DOM's quiet window runs and the renderer is idle. It is kept when
 * the page then settles without another DOM write (inline styles included);
 * otherwise it is stopped and started again once the page has settled, beside
 * the view's build. Measured on saved real pages, a scroll step took 7–32 ms
 * less with the picture beside the view, and 14–48 ms less again with it in
 * the quiet window (bench/step.bench.ts, interleaved runs).
 *
 * Only a picture without labels is taken early (labels name the refs of the
 * view being built). Covers over secret fields go up only once the view is
 * built, so neither the quiet window nor the view ever sees them. The picture
 * is handed out once, for the page it shows and the options it was taken
 * with, and never after an action: anything else takes its own picture.
 */
export class EarlyPicture {
  /** The options the run last asked a picture without labels with; none until it asks. */
  #options: ScreenshotOptions | undefined
  #pending:
    | { page: Page; options: ScreenshotOptions; shot: Promise<Screenshot>; stop: AbortController }
    | undefined

  /**
   * Starts the picture the run asks for after each observation, if it asks
   * for one, with `take` (stopped by the signal it is given). Stops and
   * replaces one not handed out: taken too soon (the page changed after it),
   * or of a tab the observation left.
   */
  start(page: Page, take: (options: ScreenshotOptions, signal: AbortSignal) => Promise<Screenshot>): void {
    this.drop()
    const options = this.#options
    if (!options) return
    const stop = new AbortController()
    const shot = take(options, stop.signal)
    // Handed out or not, its failure is the taker's to say: never an unhandled rejection.
    shot.catch(() => {})
    this.#pending = { page, options, shot, stop }
  }

  /** The picture started for `page` with these options, handed out once; undefined: take one now. */
  claim(page: Page, options: ScreenshotOptions): Promise<Screenshot> | undefined {
    const pending = this.#pending
    this.#pending = undefined
    // A picture with labels is the model's copy beside the kept one: the kept one's options stay the run's.
    if (!options.labels) this.#options = options
    if (pending && pending.page === page && sameOptions(pending.options, options)) return pending.shot
    pending?.stop.abort()
    return undefined
  }

  /** An action is about to change the page: a picture started before it shows the page as it was. */
  drop(): void {
    this.#pending?.stop.abort()
    this.#pending = undefined
  }
}

function sameOptions(a: ScreenshotOptions, b: ScreenshotOptions): boolean {
  return (
    !a.labels && !b.labels && a.quality === b.quality && a.maxWidth === b.maxWidth && a.secrets === b.secrets
  )
}
