import { type AgentEvent, stampEvent } from '../../events/events.ts'
import { zeroUsage } from '../../events/usage.ts'
import { isAbortError } from '../../tool.ts'
import { describeError } from '../../util/describe-error.ts'
import type { SubAgentRunner } from '../run/run-context.ts'
import type { RunSummary } from '../run/run-options.ts'
import type { ChildOutcome, ChildSpec, ForwardedEvent, RunningChildren } from '../run/run-state.ts'

export interface StartChildrenOptions {
  parentRunId: string
  runner: SubAgentRunner
  /** At once (true), or each after the one before has ended. */
  parallel: boolean
  /** The parent's signal: aborting it aborts every child. */
  signal: AbortSignal
  now: () => number
}

/**
 * Starts a dispatch's children and merges their events, as they happen, into
 * one queue for the dispatching state to forward. A child that throws still
 * ends with a summary (and a `done` event when it had started): a child's
 * failure is a result for the parent, never the parent's failure.
 */
export function startChildren(specs: ChildSpec[], options: StartChildrenOptions): RunningChildren {
  return new ChildGroup(specs, options)
}

class ChildGroup implements RunningChildren {
  readonly startedAt: number
  readonly ended: Promise<ChildOutcome[]>
  #pending: ForwardedEvent[] = []
  #wakeUp: (() => void) | undefined
  #ended = false
  readonly #options: StartChildrenOptions
  readonly #depth: number

  constructor(specs: ChildSpec[], options: StartChildrenOptions) {
    this.#options = options
    this.#depth = options.runner.depth + 1
    this.startedAt = options.now()
    this.ended = (
      options.parallel ? Promise.all(specs.map((spec) => this.#run(spec))) : this.#inTurn(specs)
    ).finally(() => {
      this.#ended = true
      this.#wake()
    })
  }

  get isEnded(): boolean {
    return this.#ended && this.#pending.length === 0
  }

  take(): ForwardedEvent[] {
    return this.#pending.splice(0)
  }

  waitForEvent(): Promise<void> {
    if (this.#pending.length > 0 || this.#ended) return Promise.resolve()
    return new Promise((resolve) => {
      this.#wakeUp = resolve
    })
  }

  #wake(): void {
    const wakeUp = this.#wakeUp
    this.#wakeUp = undefined
    wakeUp?.()
  }

  #push(event: AgentEvent, index: number): void {
    // A grandchild's event was stamped by the child that forwarded it: it keeps its own parent and depth.
    const forwarded: ForwardedEvent =
      event.parentRunId !== undefined && event.childIndex !== undefined && event.depth !== undefined
        ? { ...event, parentRunId: event.parentRunId, childIndex: event.childIndex, depth: event.depth }
        : { ...event, parentRunId: this.#options.parentRunId, childIndex: index, depth: this.#depth }
    this.#pending.push(forwarded)
    this.#wake()
  }

  async #inTurn(specs: ChildSpec[]): Promise<ChildOutcome[]> {
    const outcomes: ChildOutcome[] = []
    for (const spec of specs) outcomes.push(await this.#run(spec))
    return outcomes
  }

  async #run(spec: ChildSpec): Promise<ChildOutcome> {
    const startedAt = this.#options.now()
    const events = this.#options.runner.start(spec, this.#options.signal)
    let last: AgentEvent | undefined
    try {
      for (;;) {
        const item = await events.next()
        if (item.done) return { spec, summary: item.value }
        // Only the child's own events: a grandchild's `done` ends the grandchild, not this child.
        if (item.value.parentRunId === undefined) last = item.value
        this.#push(item.value, spec.index)
      }
    } catch (error) {
      const aborted = this.#options.signal.aborted || isAbortError(error)
      const summary: RunSummary = {
        runId: last?.runId ?? '',
        reason: aborted ? 'user_abort' : 'error',
        result: {
          success: false,
          text: aborted ? 'The sub-agent was aborted.' : `The sub-agent failed: ${describeError(error)}`,
        },
        usage: { ...zeroUsage },
        // What a child spent before it failed was reported in its own usage events; none of it is known here.
        costUsd: null,
        steps: 0,
        durationMs: this.#options.now() - startedAt,
      }
      // Its run had started: it still ends with `done`, so every stored child run ends.
      if (last && last.type !== 'done') {
        const { runId: _runId, ...outcome } = summary
        this.#push(stampEvent({ type: 'done', ...outcome }, last.runId, last.seq + 1, new Date()), spec.index)
      }
      return { spec, summary }
    }
  }
}
