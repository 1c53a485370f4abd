import { truncate } from '../util/text.ts'
import type { BrowserWarning } from './types.ts'

/**
 * The browser-side bounds of a run (tabs, title and URL lengths) and the
 * warnings raised when one is hit, handed to the agent with the next
 * observation so it can emit them as `warning` events. Each distinct value is
 * warned about once, not on every observation that shows it.
 */

export const defaultMaxTabs = 10
export const defaultMaxTextChars = 300

export class BoundWarnings {
  #pending: BrowserWarning[] = []
  readonly #seen = new Set<string>()

  push(warning: BrowserWarning, key = `${warning.bound}:${warning.message}`): void {
    if (this.#seen.has(key) || this.#pending.length >= 20) return
    this.#seen.add(key)
    this.#pending.push(warning)
  }

  drain(): BrowserWarning[] {
    const drained = this.#pending
    this.#pending = []
    return drained
  }

  /** `text` cut to `limit`, with a warning (once per value) when it had to be cut. */
  cut(bound: 'title' | 'url', text: string, limit: number): string {
    if (text.length <= limit) return text
    this.push(
      { bound, limit, message: `A page ${bound} of ${text.length} characters was cut to ${limit}.` },
      `${bound}:${text.length}:${text.slice(0, 100)}`,
    )
    return truncate(text, limit)
  }
}
