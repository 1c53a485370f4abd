import type { Page } from 'playwright-core'
import type { Screenshot, ScreenshotOptions } from './screenshot.ts'

/**
 * The step picture taken beside the view's build rather than after it. A run
 * asks for the same picture after every observation (its settings do not
 * change), so once it has asked, each observation starts that picture as soon
 * as its page has settled: Chromium draws and encodes it while the renderer
 * builds the view, and the next action, which waits for the picture, no
 * longer waits for the two in turn. Measured on saved real pages: a scroll
 * step's picture and view took 55–161 ms one after the other and 43–151 ms
 * side by side, before the picture's own round trips (finding secret fields,
 * the viewport's size), which now overlap the view's entirely.
 *
 * Only a picture without labels is taken early (labels name the refs of the
 * view being built). Covers over secret fields go up only once the view is
 * built, so the view never reads them. The picture is handed out once, for
 * the page it shows and the options it was taken with, and never after an
 * action: anything else takes its own picture.
 */
export class EarlyPicture {
  /** The options the run last asked a picture without labels with; none until it asks. */
  #options: ScreenshotOptions | undefined
  #pending: { page: Page; options: ScreenshotOptions; shot: Promise<Screenshot> } | undefined

  /**
   * The observation's page has settled: starts the picture the run asks for
   * after each observation, if it asks for one, with `take`. Replaces one not
   * handed out (an observation that started over on another tab).
   */
  start(page: Page, take: (options: ScreenshotOptions) => Promise<Screenshot>): void {
    const options = this.#options
    this.#pending = undefined
    if (!options) return
    const shot = take(options)
    // Handed out or not, its failure is the taker's to say: never an unhandled rejection.
    shot.catch(() => {})
    this.#pending = { page, options, shot }
  }

  /** The picture started for `page` with these options, handed out once; undefined: take one now. */
  claim(page: Page, options: ScreenshotOptions): Promise<Screenshot> | undefined {
    const pending = this.#pending
    this.#pending = undefined
    // A picture with labels is the model's copy beside the kept one: the kept one's options stay the run's.
    if (!options.labels) this.#options = options
    return pending && pending.page === page && sameOptions(pending.options, options)
      ? pending.shot
      : undefined
  }

  /** An action is about to change the page: a picture started before it shows the page as it was. */
  drop(): void {
    this.#pending = undefined
  }
}

function sameOptions(a: ScreenshotOptions, b: ScreenshotOptions): boolean {
  return (
    !a.labels && !b.labels && a.quality === b.quality && a.maxWidth === b.maxWidth && a.secrets === b.secrets
  )
}
