import type { Locator, Page } from 'playwright-core'
import type { AriaNode } from './aria-snapshot.ts'
import { FrameScanners } from './frame-scanners.ts'
import { ListenerLookup } from './listeners/listener-lookup.ts'
import { pageName } from './page-name.ts'
import { RefHistory } from './ref-history.ts'
import type { ScrollInfo } from './scan-records.ts'
import type { ViewTree } from './view-tree.ts'

/**
 * Stable element references. A ref stays with its element across steps
 * (see `ref-assignment.ts` for how), while Playwright's own refs (e12, f1e7)
 * change with an element's name and with the document. Each stable ref maps to
 * the latest way of reaching its element.
 */

/** 32-bit FNV-1a over the UTF-16 code units of `text`. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash >>> 0
}

/** `button "Save"` → `b1x3`: the role's initial and the key's hash mod 2^14 in base 36. */
export function baseRef(role: string, key: string): string {
  const initial = /^[a-z]/i.test(role) ? role.charAt(0).toLowerCase() : 'x'
  return initial + (fnv1a(`${role}\u0000${key}`) % 16384).toString(36)
}

/** How to reach an element: through Playwright's aria ref, or through the attribute the page scan set. */
export type RefTarget =
  | { kind: 'aria'; ariaRef: string }
  | { kind: 'tagged'; tag: string; attribute: string; frameAriaRef?: string | undefined }

export interface RefEntry {
  ref: string
  role: string
  /** Accessible name, or the hint shown for nameless elements. */
  name: string
  /** What the ref was derived from (see `ref-assignment.ts`), to tell a changed element from a gone one. */
  key: string
  target: RefTarget
  /** An input's kind when the role hides it (`password`, `date`…), from the page scan. */
  inputType?: string
  /** Shown only while its row or card is hovered: an action hovers that first (`actions/hover-reveal.ts`). */
  onHover?: true
}

/** The latest mapping from stable refs to elements, for one page. */
export interface LatestCapture {
  tree: ViewTree
  /** Playwright's snapshot the tree was built from (never changed by the build), and where the page was scrolled. */
  snapshot: AriaNode[]
  scroll: ScrollInfo
  /** Whether it covered the whole page or only the viewport. */
  wholePage: boolean
  /**
   * Whether it scanned all a whole-page capture would have (a viewport capture
   * of a page that fits on screen, its frames included): its tree is the same.
   */
  complete: boolean
}

export class RefRegistry {
  #page: Page | undefined
  #capture: LatestCapture | undefined
  #entries = new Map<string, RefEntry>()
  /** Every ref handed out on this page's documents, and who holds it. */
  readonly history = new RefHistory()
  /** The page scanner of each frame's document. */
  readonly scanners = new FrameScanners()
  /** Asks the browser which elements listen, for the scanners (see `listeners/listener-lookup.ts`). */
  readonly listeners = new ListenerLookup()
  /** The attribute the page scan marks elements with: this session's own random name (docs/security.md). */
  readonly attribute = pageName('data-')
  /** Refs of the previous observation of the same document, to mark what is new. */
  #seen = new Set<string>()
  #seenDocument = ''
  get page(): Page | undefined {
    return this.#page
  }

  replace(page: Page, entries: Iterable<RefEntry>, capture?: LatestCapture): void {
    this.#page = page
    this.#entries = new Map()
    for (const entry of entries) this.#entries.set(entry.ref, entry)
    this.#capture = capture
  }

  /** The tree the latest capture built (a recording reads an element's context from it without capturing again). */
  get latestCapture(): LatestCapture | undefined {
    return this.#capture
  }

  get(ref: string): RefEntry | undefined {
    return this.#entries.get(ref)
  }

  /**
   * Why a ref has no element now: `changed` when it was handed out and an
   * element that looks the same is there (the page replaced the one the ref
   * named, so acting on the look-alike could hit the wrong one), else `gone`.
   */
  whyMissing(ref: string): 'changed' | 'gone' {
    const issued = this.history.issued(ref)
    if (!issued) return 'gone'
    const base = issued.key.split('\u0001')[0]
    for (const entry of this.#entries.values()) if (entry.key.split('\u0001')[0] === base) return 'changed'
    return 'gone'
  }

  get size(): number {
    return this.#entries.size
  }

  /** Every entry of the latest capture, in document order. */
  all(): RefEntry[] {
    return [...this.#entries.values()]
  }

  /**
   * The refs of the latest capture that the previous observation of the same
   * document (URL without fragment) did not have: elements new in the page,
   * not merely scrolled into view. After a navigation nothing is marked.
   */
  takeNew(document: string): Set<string> {
    const current = new Set(this.#entries.keys())
    const fresh = new Set<string>()
    if (document === this.#seenDocument) {
      for (const ref of current) if (!this.#seen.has(ref)) fresh.add(ref)
    }
    this.#seen = current
    this.#seenDocument = document
    return fresh
  }
}

/** A Playwright locator for an entry, valid until the DOM changes. */
export function locatorFor(page: Page, target: RefTarget): Locator {
  if (target.kind === 'aria') return page.getByRef(target.ariaRef)
  const selector = `[${target.attribute}="${target.tag}"]`
  if (target.frameAriaRef) return page.getByRef(target.frameAriaRef).contentFrame().locator(selector)
  return page.locator(selector)
}
