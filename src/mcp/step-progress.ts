import type { AgentEvent } from '../events/events.ts'
import { modelSays, truncate } from '../util/text.ts'

/** One progress notification: `progress` of `total` steps, and what the step is doing. */
export interface StepProgress {
  progress: number
  total: number
  message: string
}

/**
 * Turns a run's events into one progress message per step: "Step n of max:
 * goal — action". A step that ends without an action (an unusable model
 * output, an abort) still gets its line, so every step is reported.
 */
export class StepProgressTracker {
  readonly #runId: string
  #step: { n: number; max: number; goal?: string; reported: boolean } | undefined

  constructor(runId: string) {
    this.#runId = runId
  }

  /** The progress this event completes, if any. */
  next(event: AgentEvent): StepProgress | undefined {
    // A sub-agent's steps are its own; the caller follows this run's.
    if (event.runId !== this.#runId) return undefined
    switch (event.type) {
      case 'step_started': {
        const pending = this.#unreported()
        this.#step = { n: event.step, max: event.maxTurns, reported: false }
        return pending
      }
      case 'reflection':
        if (this.#step) this.#step.goal = event.next_goal
        return undefined
      case 'tool_call_start': {
        const step = this.#step
        if (!step || step.reported) return undefined
        step.reported = true
        return this.#line(step, `${event.tool} ${JSON.stringify(event.input)}`)
      }
      case 'takeover_started': {
        // Said at once: the run may wait minutes for the person, and the caller should know why.
        const step = this.#step
        const why = event.reason ? ` ${modelSays(event.reason, 300)}` : ''
        const who =
          event.by === 'model'
            ? 'The run asks for a person to take over the browser.'
            : 'A person took over the browser.'
        return {
          progress: step?.n ?? 0,
          total: step?.max ?? 0,
          message: `${who}${why} The run waits until they hand it back.`,
        }
      }
      case 'done':
        return this.#unreported()
      default:
        return undefined
    }
  }

  #unreported(): StepProgress | undefined {
    const step = this.#step
    if (!step || step.reported) return undefined
    step.reported = true
    return this.#line(step, undefined)
  }

  #line(step: { n: number; max: number; goal?: string }, action: string | undefined): StepProgress {
    const what = [step.goal, action].filter((part) => part !== undefined && part !== '').join(' — ')
    return {
      progress: step.n,
      total: step.max,
      message: `Step ${step.n} of ${step.max}${what ? `: ${truncate(what, 300)}` : ''}`,
    }
  }
}
