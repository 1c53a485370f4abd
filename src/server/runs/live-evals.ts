import type { AgentEvent } from '../../events/events.ts'
import type { RunSlot } from './run-slots.ts'

/**
 * An eval running here. It holds run slots (SEXTANT_MAX_RUNS) taken at
 * admission, one per run it executes at once, and is live until it has
 * given every one back: its runs have ended, whether it finished, its client
 * left or it was aborted.
 */
export class LiveEval {
  readonly id: string
  /** One per run at once; each given back when the worker holding it has no more runs. */
  readonly slots: RunSlot[]
  /** Settles once every slot is given back. */
  readonly finished: Promise<void>
  readonly #controller = new AbortController()
  /** Runs executing now, from their events: /metrics and /healthz count them with the other runs. */
  readonly #runs = new Set<string>()

  constructor(id: string, slots: RunSlot[], onEnd: () => void) {
    this.id = id
    let held = slots.length
    let ended: () => void = () => {}
    this.finished = new Promise<void>((resolve) => {
      ended = resolve
    })
    this.slots = slots.map((slot) => {
      let released = false
      return {
        release: () => {
          if (released) return
          released = true
          slot.release()
          held--
          if (held > 0) return
          this.#runs.clear()
          onEnd()
          ended()
        },
      }
    })
  }

  /** Aborts every run of the eval (they end `user_abort`) and stops it starting more. */
  get signal(): AbortSignal {
    return this.#controller.signal
  }

  abort(): void {
    this.#controller.abort()
  }

  track(event: AgentEvent): void {
    if (event.type === 'run_started') this.#runs.add(event.runId)
    else if (event.type === 'done') this.#runs.delete(event.runId)
  }

  get liveRuns(): number {
    return this.#runs.size
  }
}

/** The evals running in this process, by id: what DELETE /v1/evals/:id reaches. */
export class LiveEvals {
  readonly #evals = new Map<string, LiveEval>()

  /** An admitted eval goes live, holding `slots`; it leaves once it has given them all back. */
  start(id: string, slots: RunSlot[]): LiveEval {
    const live = new LiveEval(id, slots, () => this.#evals.delete(id))
    this.#evals.set(id, live)
    return live
  }

  get(id: string): LiveEval | undefined {
    return this.#evals.get(id)
  }

  all(): LiveEval[] {
    return [...this.#evals.values()]
  }

  /** Runs of evals executing here now. */
  get liveRuns(): number {
    let count = 0
    for (const live of this.#evals.values()) count += live.liveRuns
    return count
  }
}
