import { truncate } from '../../util/text.ts'
import type { NoteQueue } from './notes.ts'

/**
 * The browser-side bounds of a run (tabs, title and URL lengths) and the
 * warnings raised when one is hit, handed to the agent with the next
 * observation so it can emit them as `warning` events. Each distinct value is
 * warned about once, not on every observation that shows it.
 */

export const defaultMaxTabs = 10
export const defaultMaxTextChars = 300

/** Bound codes as `warning` events name them. */
const boundCodes = { tabs: 'tab_limit', title: 'title_truncated', url: 'url_truncated' } as const

export class BoundWarnings {
  readonly #notes: NoteQueue
  readonly #seen = new Set<string>()

  constructor(notes: NoteQueue) {
    this.#notes = notes
  }

  /** A `warning` event for a bound hit, once per `key` in a session (the model reads its own note). */
  push(bound: keyof typeof boundCodes, message: string, key = `${bound}:${message}`): void {
    if (this.#seen.has(key)) return
    this.#seen.add(key)
    this.#notes.warnOnly(boundCodes[bound], message)
  }

  /** `text` cut to `limit`, with a warning (once per value) when it had to be cut. */
  cut(bound: 'title' | 'url', text: string, limit: number): string {
    if (text.length <= limit) return text
    this.push(
      bound,
      `A page ${bound} of ${text.length} characters was cut to ${limit}.`,
      `${bound}:${text.length}:${text.slice(0, 100)}`,
    )
    return truncate(text, limit)
  }
}
