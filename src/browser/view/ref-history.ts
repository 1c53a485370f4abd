/**
 * What a page's refs have meant so far, so a ref is never handed to another
 * element: every ref issued (with the key it was derived from, and whether
 * that key named one element only), and which element identities hold which
 * ref. Identities are strings that only one DOM node can ever have: the scan's
 * id or Playwright's aria ref, each qualified by its document's id.
 */

export interface IssuedRef {
  /** `role\0name` plus the context that told duplicates apart. */
  key: string
  /** The key named one element when the ref was issued: a later element with that key may take it over. */
  unique: boolean
}

/** Forgotten beyond this (a long session on an endless feed): refs then start afresh, with new numbers. */
const maxRemembered = 50_000

export class RefHistory {
  readonly #issued = new Map<string, IssuedRef>()
  readonly #holders = new Map<string, string>()
  /** The identities of the element each ref names now. */
  readonly #current = new Map<string, Set<string>>()
  /** Per base ref, the last suffix handed out: suffixes are never reused. */
  readonly #suffixes = new Map<string, number>()

  issued(ref: string): IssuedRef | undefined {
    return this.#issued.get(ref)
  }

  /** Whether the element a ref names now has one of these identities. */
  heldByAnyOf(ref: string, identities: Set<string>): boolean {
    for (const identity of this.#current.get(ref) ?? []) if (identities.has(identity)) return true
    return false
  }

  /** The ref of the element with this identity, if it still names that element. */
  holderOf(identity: string): string | undefined {
    const ref = this.#holders.get(identity)
    return ref !== undefined && this.#current.get(ref)?.has(identity) ? ref : undefined
  }

  /**
   * Records that `ref` names the element with these identities. When the ref
   * was carried by identity (`sameElement`) the element's identities add up
   * (its aria ref changes with its name, its scan id only shows on screen);
   * otherwise the ref has a new holder and its old identities no longer count.
   */
  bind(ref: string, issued: IssuedRef, identities: string[], sameElement: boolean): void {
    if (this.#issued.size > maxRemembered || this.#holders.size > maxRemembered) {
      this.#issued.clear()
      this.#holders.clear()
      this.#current.clear()
    }
    if (!this.#issued.has(ref)) this.#issued.set(ref, issued)
    let current = this.#current.get(ref)
    if (!current || !sameElement) {
      current = new Set()
      this.#current.set(ref, current)
    }
    for (const identity of identities) {
      this.#holders.set(identity, ref)
      current.add(identity)
    }
  }

  /** A suffix no ref of this base has had: `b1x3` → `b1x3_2`, then `_3`… */
  fresh(base: string): string {
    let suffix = this.#suffixes.get(base) ?? 1
    let ref: string
    do ref = `${base}_${++suffix}`
    while (this.#issued.has(ref))
    this.#suffixes.set(base, suffix)
    return ref
  }
}
