/**
 * What happened between two observations (navigations, new tabs, dialogs,
 * downloads, blocked requests), reported once in the next observation. A note
 * may be a function, so it can say what is known when it is read (a new tab's
 * URL is about:blank when the tab opens).
 */
export class NoteQueue {
  #notes: (string | (() => string))[] = []
  #warnings: BoundWarning[] = []

  push(note: string | (() => string)): void {
    if (this.#notes.length < 50) this.#notes.push(note)
  }

  /** A bound was hit (a download too large): the model reads the note, and the run emits a `warning` event. */
  warn(code: string, message: string): void {
    this.push(message)
    this.warnOnly(code, message)
  }

  /** A bound was hit and the model already reads about it elsewhere: only the `warning` event. */
  warnOnly(code: string, message: string): void {
    if (this.#warnings.length < 50) this.#warnings.push({ code, message })
  }

  drainWarnings(): BoundWarning[] {
    return this.#warnings.splice(0)
  }

  drain(): string[] {
    const notes = this.#notes.map((note) => (typeof note === 'string' ? note : note()))
    this.#notes = []
    return [...new Set(notes)]
  }
}

export interface BoundWarning {
  code: string
  message: string
}
