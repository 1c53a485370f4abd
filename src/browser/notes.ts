/**
 * What happened between two observations (navigations, new tabs, dialogs,
 * downloads, blocked requests), reported once in the next observation. A note
 * may be a function, so it can say what is known when it is read (a new tab's
 * URL is about:blank when the tab opens).
 */
export class NoteQueue {
  #notes: (string | (() => string))[] = []

  push(note: string | (() => string)): void {
    if (this.#notes.length < 50) this.#notes.push(note)
  }

  drain(): string[] {
    const notes = this.#notes.map((note) => (typeof note === 'string' ? note : note()))
    this.#notes = []
    return [...new Set(notes)]
  }
}
