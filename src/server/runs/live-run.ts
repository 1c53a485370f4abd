import type { HandoverDesk } from '../../agent/handover/handover-desk.ts'
import type { BrowserSession } from '../../browser/browser-session.ts'
import type { AgentEvent, AgentEventOf } from '../../events/events.ts'
import { zeroUsage } from '../../events/usage.ts'
import { type StoredRun, statusForReason } from '../../store/run-store.ts'
import { PendingReplies } from './pending-replies.ts'

export interface LiveRunInfo {
  id: string
  task: string
  model: string
  startUrl?: string
  createdAt: string
  /** The URL told when the run ends (its request's `webhook`). */
  webhook?: string
}

/**
 * Confirmations are keyed by the run that asks and its call id: call ids are
 * per run (`call_<step>`), so sub-agents working in parallel ask with the
 * same ones, and one approval must never settle another run's call.
 */
export function confirmationKey(runId: string, callId: string): string {
  return `${runId}\u0000${callId}`
}

/**
 * One run in progress: its events so far (so any number of subscribers can
 * replay and follow it), its abort switch, and the replies it waits for
 * (its own, and its sub-agents' confirmations).
 */
export class LiveRun {
  readonly info: LiveRunInfo
  readonly confirmations = new PendingReplies<boolean>()
  readonly questions = new PendingReplies<string>()
  readonly #controller = new AbortController()
  readonly #events: AgentEvent[] = []
  /** The run's own id and its sub-agents' runs, as their events name them. */
  readonly #runIds = new Set<string>()
  #steps = 0
  #done: AgentEventOf<'done'> | undefined
  /** Between the run's own takeover_started and takeover_ended: a person drives its page. */
  #takenOver = false
  #ended = false
  /** Another server owns the run now: its followers here heard why and were let go. */
  #lost = false
  /** Resolved and replaced on every new event: followers wait on it. */
  #changed = Promise.withResolvers<void>()
  readonly #finished = Promise.withResolvers<void>()
  #browser: BrowserSession | undefined
  /** Told of each change of `browser`: a live view moves to a replaced browser, and ends when it is let go. */
  readonly #browserWatchers = new Set<(browser: BrowserSession | undefined) => void>()

  /** Where a person takes the run's browser over and hands it back; absent when the run opted out. */
  readonly handover: HandoverDesk | undefined

  constructor(info: LiveRunInfo, handover?: HandoverDesk) {
    this.info = info
    this.handover = handover
  }

  /** The run's browser session while it has one (see RunOptions.onBrowser): a live view and a person's input reach the page through it. */
  get browser(): BrowserSession | undefined {
    return this.#browser
  }

  set browser(browser: BrowserSession | undefined) {
    if (browser === this.#browser) return
    this.#browser = browser
    for (const watcher of [...this.#browserWatchers]) watcher(browser)
  }

  /** Calls `watcher` with each new value of `browser`, until the returned function is called. */
  watchBrowser(watcher: (browser: BrowserSession | undefined) => void): () => void {
    this.#browserWatchers.add(watcher)
    return () => this.#browserWatchers.delete(watcher)
  }

  get signal(): AbortSignal {
    return this.#controller.signal
  }

  /** Settles once the run has ended and its last event is stored. */
  get finished(): Promise<void> {
    return this.#finished.promise
  }

  get lastSeq(): number {
    return this.#events.at(-1)?.seq ?? -1
  }

  /** A person has the run's browser (its events say so): their input is accepted, and live frames are not masked. */
  get isTakenOver(): boolean {
    return this.#takenOver
  }

  get isDone(): boolean {
    return this.#done !== undefined
  }

  abort(): void {
    this.#controller.abort()
  }

  get isLost(): boolean {
    return this.#lost
  }

  /**
   * Another server ended or claimed the run: `last` (the error saying so) is
   * the last event its followers here see, and they are let go at once; the
   * run is aborted. Its events after this count (isDone) but are not shown.
   */
  lose(last: AgentEvent): void {
    if (this.#lost) return
    this.#events.push(last)
    this.#lost = true
    this.#controller.abort()
    this.#wake()
  }

  /**
   * The pending confirmation a reply means. Addressed to a sub-agent's run,
   * only that run's call; addressed to this run, its own call, else the one
   * sub-agent's call with that id: `ambiguous` when several wait with it.
   */
  confirmationFor(runId: string, callId: string): string | 'ambiguous' | undefined {
    const exact = confirmationKey(runId, callId)
    if (this.confirmations.isPending(exact)) return exact
    if (runId !== this.info.id) return undefined
    const ofChildren = this.confirmations.pendingWhere((key) => key.endsWith(`\u0000${callId}`))
    return ofChildren.length > 1 ? 'ambiguous' : ofChildren[0]
  }

  /** Whether `runId` is this run or one of its sub-agents (seen in its events), which are answered through it. */
  includes(runId: string): boolean {
    return runId === this.info.id || this.#runIds.has(runId)
  }

  /** An event of the run's stream: its own, or one of its sub-agents' (which says nothing of the run's own state). */
  push(event: AgentEvent): void {
    // Replies are expected before anyone sees the request, so a fast client is never refused.
    if (event.type === 'confirmation_required')
      this.confirmations.expect(confirmationKey(event.runId, event.callId))
    if (event.type === 'question') this.questions.expect(event.questionId)
    if (event.type === 'confirmation_resolved')
      this.confirmations.forget(confirmationKey(event.runId, event.callId))
    if (event.type === 'answer') this.questions.forget(event.questionId)
    this.#runIds.add(event.runId)
    if (!this.#lost) this.#events.push(event)
    if (event.parentRunId === undefined) {
      if (event.type === 'step_started') this.#steps = Math.max(this.#steps, event.step)
      if (event.type === 'done') this.#done = event
      if (event.type === 'takeover_started') this.#takenOver = true
      if (event.type === 'takeover_ended' || event.type === 'done') this.#takenOver = false
    }
    this.#wake()
  }

  #wake(): void {
    const changed = this.#changed
    this.#changed = Promise.withResolvers<void>()
    changed.resolve()
  }

  /** A copy of the run's events so far. */
  eventsSoFar(): AgentEvent[] {
    return [...this.#events]
  }

  /** Called by the manager once the run's events are stored. */
  markFinished(): void {
    this.#ended = true
    this.#finished.resolve()
    this.#wake()
  }

  /**
   * The run's events after `afterSeq`, then every new one until `done`. Stops
   * early, without error, when `signal` aborts (the subscriber went away).
   */
  async *follow(afterSeq: number, signal: AbortSignal): AsyncGenerator<AgentEvent, void, undefined> {
    let index = this.#events.findIndex((event) => event.seq > afterSeq)
    if (index === -1) index = this.#events.length
    // Waking every follower when one leaves is cheap, and avoids racing against a
    // long-lived promise, which would pile up one reaction per wait.
    const onAbort = () => this.#wake()
    signal.addEventListener('abort', onAbort, { once: true })
    try {
      for (;;) {
        while (!signal.aborted) {
          const event = this.#events[index]
          if (event === undefined) break
          index++
          // A Last-Event-ID from the future (a client's bug) skips events until it is reached.
          if (event.seq <= afterSeq) continue
          // `done` once the run is stored as ended: a client that read it, then asks any server, sees it ended.
          if (event.type === 'done' && event.parentRunId === undefined) await this.#finished.promise
          yield event
          // A sub-agent's `done` (forwarded, with parentRunId) ends only that child.
          if (event.type === 'done' && event.parentRunId === undefined) return
        }
        if (this.#ended || this.#lost || signal.aborted) return
        await this.#changed.promise
      }
    } finally {
      signal.removeEventListener('abort', onAbort)
    }
  }

  /**
   * The events pushed from now on (text deltas included, whatever their
   * seq), until the run ends here: what another server's followers need of
   * the stream that the store does not keep (see routes/owner-text.ts).
   */
  async *followNew(signal: AbortSignal): AsyncGenerator<AgentEvent, void, undefined> {
    let index = this.#events.length
    const onAbort = () => this.#wake()
    signal.addEventListener('abort', onAbort, { once: true })
    try {
      while (!signal.aborted) {
        const event = this.#events[index]
        if (event !== undefined) {
          index++
          yield event
          continue
        }
        if (this.#ended || this.#lost || this.#done) return
        await this.#changed.promise
      }
    } finally {
      signal.removeEventListener('abort', onAbort)
    }
  }

  snapshot(): StoredRun {
    const done = this.#done
    return {
      id: this.info.id,
      status: statusForReason(done?.reason),
      task: this.info.task,
      model: this.info.model,
      ...(this.info.startUrl === undefined ? {} : { startUrl: this.info.startUrl }),
      ...(done ? { reason: done.reason, result: done.result } : {}),
      usage: done?.usage ?? { ...zeroUsage },
      ...(done ? { costUsd: done.costUsd ?? null } : {}),
      steps: done?.steps ?? this.#steps,
      createdAt: this.info.createdAt,
      ...(done ? { finishedAt: done.at } : {}),
    }
  }
}
