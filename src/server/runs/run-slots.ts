/** One of the runs this server executes at once; given back once, when its run has ended (or never started). */
export interface RunSlot {
  release(): void
}

/**
 * The runs this server executes at once (SEXTANT_MAX_RUNS). A run holds its
 * slot from admission, before it is stored, until it has ended and is stored:
 * two requests racing for the last slot cannot both have it.
 */
export class RunSlots {
  readonly max: number
  #used = 0

  constructor(max: number) {
    this.max = max
  }

  /** A slot, or undefined when every one is taken. */
  take(): RunSlot | undefined {
    if (this.#used >= this.max) return undefined
    this.#used++
    let held = true
    return {
      release: () => {
        // Idempotent: a slot given back twice would let one run too many in.
        if (!held) return
        held = false
        this.#used--
      },
    }
  }
}
