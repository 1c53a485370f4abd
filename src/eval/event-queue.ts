/**
 * Merges events pushed by concurrent runs into one ordered stream: workers
 * push, one consumer iterates. Iteration ends after `end()` once the queue is
 * drained.
 */
export class EventQueue<T> {
  #items: T[] = []
  #ended = false
  #wake: (() => void) | undefined

  push(item: T): void {
    this.#items.push(item)
    this.#notify()
  }

  end(): void {
    this.#ended = true
    this.#notify()
  }

  async *drain(): AsyncGenerator<T, void, undefined> {
    for (;;) {
      while (this.#items.length > 0) yield this.#items.shift() as T
      if (this.#ended) return
      await new Promise<void>((resolve) => {
        this.#wake = resolve
      })
    }
  }

  #notify(): void {
    const wake = this.#wake
    this.#wake = undefined
    wake?.()
  }
}
