import type { Page } from 'playwright-core'
import type { NetworkActivity } from './network-activity.ts'
import { settlePage } from './settle.ts'

/**
 * Settles a session's pages and remembers which ones an action settled last,
 * so an observation right after a navigation does not wait a second time.
 */
export class SettledPages {
  /** When each page last finished settling, to skip a second settle when nothing moved since. */
  readonly #settledAt = new Map<Page, number>()
  readonly #activityOf: (page: Page) => NetworkActivity | undefined

  constructor(activityOf: (page: Page) => NetworkActivity | undefined) {
    this.#activityOf = activityOf
  }

  /** An action's settle: remembered, so the next observation may skip its own. */
  async settle(page: Page, signal: AbortSignal): Promise<boolean> {
    const settled = await settlePage(page, this.#activityOf(page), signal)
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
  ): Promise<{ page: Page; settled: boolean }> {
    let page = await activePage()
    let settled = this.#stillSettled(page) || (await settlePage(page, this.#activityOf(page), signal))
    // Only an action's own settle may spare the next observation its wait.
    this.#settledAt.clear()
    const latest = await activePage()
    if (latest !== page) {
      page = latest
      settled = await settlePage(page, this.#activityOf(page), signal)
    }
    return { page, settled }
  }

  forget(page: Page): void {
    this.#settledAt.delete(page)
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
