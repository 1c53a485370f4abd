import type { Page } from 'playwright-core'
import type { NetworkActivity } from './network-activity.ts'
import { ActionWatch } from './page-watch.ts'
import { settlePage } from './settle.ts'

/**
 * Settles a session's pages and remembers which ones an action settled last,
 * so an observation right after a navigation does not wait a second time,
 * and watches the page an action works on, so the observation after it counts
 * the DOM's quiet from the action.
 */
export class SettledPages {
  /** When each page last finished settling, to skip a second settle when nothing moved since. */
  readonly #settledAt = new Map<Page, number>()
  readonly #activityOf: (page: Page) => NetworkActivity | undefined
  /** The watch of the latest action, until the next observation uses it. */
  #watch: ActionWatch | undefined

  constructor(activityOf: (page: Page) => NetworkActivity | undefined) {
    this.#activityOf = activityOf
  }

  /** An action is about to work on `page`: watches its DOM from now on. */
  actionStarting(page: Page): void {
    this.#watch?.dispose()
    this.#watch = new ActionWatch(page)
  }

  actionEnded(): void {
    this.#watch?.ended()
  }

  /** An action's settle: remembered, so the next observation may skip its own. */
  async settle(page: Page, signal: AbortSignal): Promise<boolean> {
    const { loaded: settled } = await settlePage(page, this.#activityOf(page), signal)
    if (settled) this.#settledAt.set(page, performance.now())
    else this.#settledAt.delete(page)
    return settled
  }

  /**
   * An observation's settle of the active page. A tab that opened while the
   * last one settled is the active one by then: it is settled too, and is the
   * page to observe.
   */
  async beforeObserving(
    activePage: () => Promise<Page>,
    signal: AbortSignal,
  ): Promise<{ page: Page; settled: boolean; watched: boolean }> {
    const watch = this.#watch
    this.#watch = undefined
    try {
      let page = await activePage()
      let result = this.#stillSettled(page)
        ? { loaded: true, watched: false }
        : await settlePage(page, this.#activityOf(page), signal, {}, watch)
      // Only an action's own settle may spare the next observation its wait.
      this.#settledAt.clear()
      const latest = await activePage()
      if (latest !== page) {
        page = latest
        result = await settlePage(page, this.#activityOf(page), signal)
      }
      return { page, settled: result.loaded, watched: result.watched }
    } finally {
      watch?.dispose()
    }
  }

  forget(page: Page): void {
    this.#settledAt.delete(page)
    if (this.#watch?.page !== page) return
    this.#watch.dispose()
    this.#watch = undefined
  }

  /**
   * A page the last action settled (navigate, back, reload), with no request
   * started or ended since, needs no second wait before it is observed: this
   * saves a settle on every navigation step.
   */
  #stillSettled(page: Page): boolean {
    const settledAt = this.#settledAt.get(page)
    const activity = this.#activityOf(page)
    return settledAt !== undefined && activity !== undefined && activity.lastChangeAt() <= settledAt
  }
}
