import type { Page } from 'playwright-core'
import { abortable } from '../../../tool.ts'
import type { ActionGate } from '../../settle/action-gate.ts'
import type { RefRegistry } from '../../view/stable-refs.ts'
import { PageCdpSessions } from '../cdp-sessions.ts'
import { EarlyPicture } from './early-picture.ts'
import { captureScreenshot, refLabels, type Screenshot, type ScreenshotOptions } from './screenshot.ts'
import type { SecretFields } from './secret-masks.ts'

/**
 * A session's step pictures: the one each observation starts early (see
 * `early-picture.ts`), the kept CDP sessions, and the scale of the latest
 * picture (screenshot pixels per CSS pixel: the model's points are in them).
 * Every picture is held by the session's action gate: the next action waits
 * for it, so it shows the page as observed.
 */
export class StepPictures {
  readonly #cdpSessions = new PageCdpSessions()
  readonly #early = new EarlyPicture()
  readonly #fields: SecretFields
  readonly #registry: RefRegistry
  readonly #gate: ActionGate
  /** The session's end: stops an early picture, which no observation's signal does. */
  readonly #closed: AbortSignal
  #scale = 1

  constructor(parts: { fields: SecretFields; registry: RefRegistry; gate: ActionGate; closed: AbortSignal }) {
    this.#fields = parts.fields
    this.#registry = parts.registry
    this.#gate = parts.gate
    this.#closed = parts.closed
  }

  get scale(): number {
    return this.#scale
  }

  /**
   * An observation's page is settling (or has settled): starts the picture
   * the run will ask for, if it asks for one; covers go up only after
   * `viewBuilt`. Replaces one started before.
   */
  start(page: Page, viewBuilt: Promise<unknown>): void {
    this.#early.start(page, (options, stop) =>
      // Not the observation's signal: a picture the run then asks for must not die with it.
      this.#gate.hold(this.#take(page, [], options, AbortSignal.any([stop, this.#closed]), viewBuilt)),
    )
  }

  /** An action is about to change the page: no picture started before it is handed out. */
  drop(): void {
    this.#early.drop()
  }

  /**
   * The page as shown, with `viewRefs`' labels when asked (the refs of the
   * latest view, in its order): the observation's early picture when it
   * fits, or one taken now.
   */
  take(page: Page, viewRefs: string[], options: ScreenshotOptions, signal: AbortSignal): Promise<Screenshot> {
    const early = this.#early.claim(page, options)
    return early ? abortable(early, signal) : this.#take(page, viewRefs, options, signal)
  }

  async #take(
    page: Page,
    viewRefs: string[],
    options: ScreenshotOptions,
    signal: AbortSignal,
    drawAfter?: Promise<unknown>,
  ): Promise<Screenshot> {
    const labels = options.labels ? await refLabels(page, this.#registry, viewRefs) : []
    const { scale, ...shot } = await captureScreenshot(page, options, signal, {
      labels,
      fields: this.#fields,
      cdpSessions: this.#cdpSessions,
      ...(drawAfter ? { drawAfter } : {}),
    })
    this.#scale = scale
    return shot
  }
}
