import type { BrowserContext, Page } from 'playwright-core'
import { truncate } from '../../util/text.ts'
import { type BoundWarnings, defaultMaxTabs, defaultMaxTextChars } from './bounds.ts'
import type { NoteQueue } from './notes.ts'

/** A tab as the model and the caller see it (part of BrowserSession's PageObservation). */
export interface TabInfo {
  /** Stable tab id shown to the model, e.g. "t1". */
  id: string
  url: string
  title: string
  active: boolean
}

export interface Tab {
  /** "t1", "t2"…: never reused within a run. */
  id: string
  page: Page
}

/**
 * The run's tabs. Pages the site opens (popups, target=_blank) become tabs
 * too, are reported in the next observation, and the newest becomes active.
 * Each tab gets `setup` (dialogs, downloads, network activity), whose
 * returned cleanup runs when the tab closes.
 */
export interface TabLimits {
  maxTabs?: number | undefined
  /** Titles and URLs in `list()` are cut to this many characters. */
  maxTextChars?: number | undefined
  warnings?: BoundWarnings | undefined
}

export class TabTracker {
  readonly #context: BrowserContext
  readonly #notes: NoteQueue
  readonly #setup: (tab: Tab) => () => void
  readonly #tabs: Tab[] = []
  readonly #cleanups = new Map<Page, () => void>()
  readonly #closing = new Set<Page>()
  #active: Tab | undefined
  /** Told whenever another tab becomes the active one (a live view follows it). */
  readonly #activeWatchers = new Set<() => void>()
  #count = 0
  /** Pages this tracker is opening itself: their 'page' event is no news. */
  #opening = 0
  readonly #maxTabs: number
  readonly #maxTextChars: number
  readonly #warnings: BoundWarnings | undefined

  constructor(
    context: BrowserContext,
    notes: NoteQueue,
    setup: (tab: Tab) => () => void,
    limits: TabLimits = {},
  ) {
    this.#context = context
    this.#notes = notes
    this.#setup = setup
    this.#maxTabs = limits.maxTabs ?? defaultMaxTabs
    this.#maxTextChars = limits.maxTextChars ?? defaultMaxTextChars
    this.#warnings = limits.warnings
    context.on('page', (page) => {
      if (this.#tabs.some((tab) => tab.page === page)) return
      if (this.#opening === 0 && this.#tabs.length >= this.#maxTabs) {
        // A page opening tab after tab (window.open in a loop) must not grow the run without bound.
        page.close().catch(() => {})
        const message = `The page opened a new tab, which was closed: this run may have at most ${this.#maxTabs} tabs open.`
        this.#notes.push(message)
        this.#warnings?.push('tabs', message, 'tabs')
        return
      }
      const tab = this.#add(page)
      this.#activate(tab)
      if (this.#opening > 0) {
        this.#opening--
        return
      }
      this.#notes.push(() => `New tab ${tab.id} opened (${describe(tab.page)}); it is now the active tab.`)
    })
  }

  #add(page: Page): Tab {
    const tab: Tab = { id: `t${++this.#count}`, page }
    this.#tabs.push(tab)
    this.#cleanups.set(page, this.#setup(tab))
    page.on('close', () => this.#remove(tab))
    return tab
  }

  #remove(tab: Tab): void {
    const index = this.#tabs.indexOf(tab)
    if (index < 0) return
    this.#tabs.splice(index, 1)
    this.#cleanups.get(tab.page)?.()
    this.#cleanups.delete(tab.page)
    const ours = this.#closing.delete(tab.page)
    if (!ours) this.#notes.push(`Tab ${tab.id} was closed by the page.`)
    if (this.#active === tab) {
      this.#activate(this.#tabs[this.#tabs.length - 1])
      if (this.#active && !ours) this.#notes.push(`Tab ${this.#active.id} is now the active tab.`)
    }
  }

  /** The active tab, opening a blank one if every tab was closed. */
  async active(): Promise<Tab> {
    if (this.#active && !this.#active.page.isClosed()) return this.#active
    return this.open()
  }

  /** Opens a tab the run asked for (not reported as news), and makes it active. */
  async open(): Promise<Tab> {
    if (this.#tabs.length >= this.#maxTabs) {
      throw new Error(`This run may have at most ${this.#maxTabs} tabs open; close one first (close_tab).`)
    }
    this.#opening++
    let page: Page
    try {
      page = await this.#context.newPage()
    } catch (error) {
      this.#opening--
      throw error
    }
    let tab = this.#tabs.find((candidate) => candidate.page === page)
    if (!tab) {
      this.#opening--
      tab = this.#add(page)
    }
    this.#activate(tab)
    return tab
  }

  find(id: string): Tab | undefined {
    const wanted = id.trim().toLowerCase()
    return this.#tabs.find((tab) => tab.id === wanted || tab.id === `t${wanted}`)
  }

  activate(tab: Tab): void {
    this.#activate(tab)
  }

  #activate(tab: Tab | undefined): void {
    if (this.#active === tab) return
    this.#active = tab
    for (const watcher of [...this.#activeWatchers]) watcher()
  }

  /** The active tab as it is, without opening one when every tab was closed. */
  get current(): Tab | undefined {
    return this.#active && !this.#active.page.isClosed() ? this.#active : undefined
  }

  /** Calls `watcher` each time another tab becomes active, until the returned function is called. */
  onActiveChange(watcher: () => void): () => void {
    this.#activeWatchers.add(watcher)
    return () => this.#activeWatchers.delete(watcher)
  }

  async close(tab: Tab): Promise<void> {
    this.#closing.add(tab.page)
    await tab.page.close()
  }

  get all(): readonly Tab[] {
    return this.#tabs
  }

  /**
   * The tabs with their titles. `untitled`: a page whose title the caller
   * reads anyway (the page view's scan does), left empty here to save a round
   * trip to it.
   */
  async list(untitled?: Page): Promise<TabInfo[]> {
    // Taken before any await: a tab opening while titles are read must not leave a list with no active tab.
    const active = this.#active
    return Promise.all(
      this.#tabs.map(async (tab) => ({
        id: tab.id,
        url: truncate(tab.page.url(), this.#maxTextChars),
        title:
          tab.page === untitled ? '' : truncate(await tab.page.title().catch(() => ''), this.#maxTextChars),
        active: tab === active,
      })),
    )
  }
}

function describe(page: Page): string {
  const url = page.url()
  return url === 'about:blank' ? 'blank so far' : url.slice(0, 200)
}
