import type { LiveRun } from './live-run.ts'

/**
 * The runs executing in this process, and which of them each running
 * sub-agent belongs to: a reply or an abort may name a sub-agent's own run.
 */
export class LiveRuns {
  readonly #runs = new Map<string, LiveRun>()
  readonly #byChild = new Map<string, LiveRun>()

  get size(): number {
    return this.#runs.size
  }

  get(runId: string): LiveRun | undefined {
    return this.#runs.get(runId)
  }

  /** The live run with this id, or the live run a running sub-agent with this id belongs to. */
  holding(runId: string): LiveRun | undefined {
    return this.#runs.get(runId) ?? this.#byChild.get(runId)
  }

  all(): LiveRun[] {
    return [...this.#runs.values()]
  }

  add(run: LiveRun): void {
    this.#runs.set(run.info.id, run)
  }

  addChild(childRunId: string, run: LiveRun): void {
    this.#byChild.set(childRunId, run)
  }

  /** The run and its sub-agents are no longer live here. */
  remove(run: LiveRun): void {
    this.#runs.delete(run.info.id)
    for (const [child, parent] of this.#byChild) if (parent === run) this.#byChild.delete(child)
  }
}
