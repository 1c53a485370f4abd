import type { Locator, Page } from 'playwright-core'

/**
 * Stable element references. A ref is derived from what the model can see of
 * an element (its role and accessible name), so the same button keeps the same
 * ref across re-renders and steps, while Playwright's own refs (e12, f1e7)
 * change whenever the DOM or the document does. Each stable ref maps to the
 * latest way of reaching the element.
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
  const initial = /^[a-z]/i.test(role) ? role[0]!.toLowerCase() : 'x'
  return initial + (fnv1a(`${role}\u0000${key}`) % 16384).toString(36)
}

/**
 * Hands out refs in document order: the first element with a given base ref
 * gets it bare, later duplicates (same role and name) and hash collisions get
 * `_2`, `_3`…, so the numbering only depends on the page's content.
 */
export class RefAssigner {
  readonly #used = new Map<string, number>()

  next(role: string, key: string): string {
    const base = baseRef(role, key)
    const count = (this.#used.get(base) ?? 0) + 1
    this.#used.set(base, count)
    return count === 1 ? base : `${base}_${count}`
  }
}

/** How to reach an element: through Playwright's aria ref, or through the attribute the page scan set. */
export type RefTarget =
  | { kind: 'aria'; ariaRef: string }
  | { kind: 'tagged'; tag: string; frameAriaRef?: string | undefined }

export interface RefEntry {
  ref: string
  role: string
  /** Accessible name, or the hint shown for nameless elements. */
  name: string
  target: RefTarget
  /** An input's kind when the role hides it (`password`, `date`…), from the page scan. */
  inputType?: string
}

export const refAttribute = 'data-sextant-ref'

/** The latest mapping from stable refs to elements, for one page. */
export class RefRegistry {
  #page: Page | undefined
  #entries = new Map<string, RefEntry>()
  /** Refs of the previous observation of the same document, to mark what is new. */
  #seen = new Set<string>()
  #seenDocument = ''
  #captures = 0

  /** A new number per capture, so the tags of one capture never match another's. */
  nextCapture(): number {
    return ++this.#captures
  }

  get page(): Page | undefined {
    return this.#page
  }

  replace(page: Page, entries: Iterable<RefEntry>): void {
    this.#page = page
    this.#entries = new Map()
    for (const entry of entries) this.#entries.set(entry.ref, entry)
  }

  get(ref: string): RefEntry | undefined {
    return this.#entries.get(ref)
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
  const selector = `[${refAttribute}="${target.tag}"]`
  if (target.frameAriaRef) return page.getByRef(target.frameAriaRef).contentFrame().locator(selector)
  return page.locator(selector)
}
