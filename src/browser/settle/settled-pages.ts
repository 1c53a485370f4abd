import type { Page } from 'playwright-core'
import type { NetworkActivity } from './network-activity.ts'
import { ActionWatch, backgroundEvents } from './page-watch.ts'
import { type Settled, settlePage } from './settle.ts'

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
  /**
   * Watches of pages put in the background (another tab became active), from
   * that moment: when one is observed again (its popup closed, the model
   * switched back), its quiet counts from its last change, not from the
   * observation, so a page that did nothing meanwhile costs a round trip.
   */
  readonly #left = new Map<Page, ActionWatch>()
  /** The active page as last told, to know which page a change of tabs left. */
  #active: Page | undefined

  constructor(activityOf: (page: Page) => NetworkActivity | undefined) {
    this.#activityOf = activityOf
  }

  /** An action is about to work on `page`: watches its DOM from now on. */
  actionStarting(page: Page): void {
    this.#watch?.dispose()
    this.#watch = new ActionWatch(page)
    this.#dropLeft(page)
  }

  /** Another tab became active: the page it left starts being watched in the background. */
  activeChanged(active: Page | undefined): void {
    const left = this.#active
    this.#active = active
    if (!left || left === active || left.isClosed()) return
    this.#dropLeft(left)
    const watch = new ActionWatch(left, backgroundEvents)
    // Nothing of the run's acts on it from now: its quiet counts from its last change or event, or from now.
    watch.ended()
    this.#left.set(left, watch)
  }

  #dropLeft(page: Page): void {
    this.#left.get(page)?.dispose()
    this.#left.delete(page)
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
   * page to observe. `framed` is told a page once the first frame of its
   * quiet window is drawn (after the action, or after the wait began), while
   * the window still runs; `unchangedSinceFramed` says whether the page
   * observed is the one last told, with no DOM write since.
   */
  async beforeObserving(
    activePage: () => Promise<Page>,
    signal: AbortSignal,
    framed?: (page: Page) => void,
  ): Promise<{
    page: Page
    settled: boolean
    watched: boolean
    quiet: boolean
    late: boolean
    unchangedSinceFramed: boolean
  }> {
    const acted = this.#watch
    this.#watch = undefined
    let watch = acted
    try {
      let page = await activePage()
      // Not the page the action worked on (a tab closed or switched to): its background watch, if it has one.
      const left = this.#left.get(page)
      if (watch?.page !== page && left) {
        this.#left.delete(page)
        watch = left
      }
      const tellFramed = (of: Page) => (framed ? () => framed(of) : undefined)
      let result: Settled = this.#stillSettled(page)
        ? { loaded: true, watched: false, quiet: true, late: false, unchangedSinceFramed: false }
        : await settlePage(page, this.#activityOf(page), signal, {}, watch, tellFramed(page))
      // Only an action's own settle may spare the next observation its wait.
      this.#settledAt.clear()
      const latest = await activePage()
      if (latest !== page) {
        page = latest
        result = await settlePage(page, this.#activityOf(page), signal, {}, undefined, tellFramed(page))
      }
      return {
        page,
        settled: result.loaded,
        watched: result.watched,
        quiet: result.quiet,
        late: result.late,
        unchangedSinceFramed: result.unchangedSinceFramed,
      }
    } finally {
      acted?.dispose()
      if (watch !== acted) watch?.dispose()
    }
  }

  forget(page: Page): void {
    this.#dropLeft(page)
    if (this.#active === page) this.#active = undefined
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
