import type { AgentEvent } from '../events/events.ts'
import { ChildRunRecorder } from './child-runs.ts'
import { EventWriter } from './event-writer.ts'
import type { RunOwner } from './owner.ts'
import { type NewRun, newRunOf, outcomeOf, type RunStore } from './run-store.ts'

/** What the stream's `run_started` does not say, or says otherwise than the record should. */
export type RecordedRunInfo = Partial<Pick<NewRun, 'task' | 'model' | 'startUrl'>>

/**
 * Records whole runs from their event streams, for the callers that hold a
 * stream rather than a run (the CLI, evals): a top-level `run_started`
 * creates the run, every event is written in order after it, a sub-agent's
 * events go to a run of its own (ChildRunRecorder), and `done` ends the run.
 * Writes land in stream order on any store (a run before its events, its end
 * after them), and a failed write is reported, never thrown into the stream.
 */
export class RunRecorder {
  readonly #store: RunStore
  readonly #writer: EventWriter
  readonly #children: ChildRunRecorder
  readonly #owner: RunOwner
  readonly #onError: (error: unknown) => void

  constructor(store: RunStore, options: { owner: RunOwner; onError: (error: unknown) => void }) {
    this.#store = store
    this.#owner = options.owner
    this.#onError = options.onError
    // Fenced as its owner: a refusal (another process ended the run) is reported like any failed write.
    this.#writer = new EventWriter(store, options.onError, {
      owner: options.owner,
      onFenced: options.onError,
    })
    this.#children = new ChildRunRecorder(store, this.#writer, options.owner, options.onError)
  }

  /** Creates the run the stream's first event names: for a stream whose first event is not run_started. */
  start(first: AgentEvent, info: { task: string; model: string; startUrl?: string | undefined }): void {
    this.#stored(() => this.#store.createRun(newRunOf(first, info, this.#owner)))
  }

  /** Records one event; `info` overrides what a top-level `run_started` says. */
  record(event: AgentEvent, info: RecordedRunInfo = {}): void {
    if (this.#children.record(event)) return
    if (event.type === 'run_started') {
      this.start(event, {
        task: info.task ?? event.task,
        model: info.model ?? event.model,
        startUrl: info.startUrl ?? event.startUrl,
      })
    }
    this.#writer.push(event)
    if (event.type !== 'done') return
    this.#stored(() => this.#store.finishRun(event.runId, outcomeOf(event), this.#owner))
  }

  /** Settles once everything recorded so far is written (or reported lost). */
  flush(): Promise<void> {
    return this.#writer.inOrder(async () => {})
  }

  #stored(work: () => Promise<void>): void {
    this.#writer.inOrder(work).catch(this.#onError)
  }
}
