import { type AgentEvent, isLiveOnly } from '../events/events.ts'
import type { RunOwner } from './owner.ts'
import type { RunStore } from './run-store.ts'
import { RunFencedError } from './store-errors.ts'

/** What a writer tells its owner about the store, besides the events it writes. */
export interface EventWriterHooks {
  /** The first failed write of an outage; the writer keeps retrying. */
  onOutage?(error: unknown): void
  /** Every failed write, the first included: one retry follows each. */
  onRetry?(error: unknown): void
  /** The first write that succeeded after an outage. */
  onRecovered?(outage: { durationMs: number; failedWrites: number }): void
  /**
   * A run pushed an event while the writer already held `maxBuffered` unwritten
   * events: told once per run until the buffer is empty again. The event is kept; the owner ends
   * the run, so that its buffer stops growing without anything being dropped.
   */
  onOverflow?(runId: string): void
  /**
   * The store refused the events of runs this writer's owner no longer owns
   * (RunFencedError): not retried, since it never succeeds; the owner stops
   * those runs. The batch's other events are written.
   */
  onFenced?(error: RunFencedError): void
}

export interface EventWriterOptions extends EventWriterHooks {
  /** Unwritten events held before runs that push more are told to stop (onOverflow). Default 10,000. */
  maxBuffered?: number
  /** The first retry waits this long; each next one twice as long, up to maxRetryMs. Default 100. */
  retryMs?: number
  /** Default 2,000. */
  maxRetryMs?: number
  /** Writes as this owner: events of runs it no longer owns are refused (onFenced). */
  owner?: RunOwner
}

/** Events still unwritten when their writer was closed. */
export class WriterClosedError extends Error {
  override name = 'WriterClosedError'
  constructor() {
    super('The event writer was closed before these events could be stored.')
  }
}

/**
 * Queues events and writes them in one transaction per event-loop tick, so a
 * fast stream of text deltas costs one write per tick instead of one per
 * delta, and a stream never waits on the database.
 *
 * One write is in flight at a time: a shared store's connections may commit
 * two concurrent batches in either order, and a follower reading between them
 * would see a gap in seq. A failed write is retried, with backoff, until the
 * store answers again (the database restarting, a SQLite file locked by
 * another process): the batches behind it wait, so events land in order and
 * none is dropped. Only close() gives up on what is still unwritten, and
 * reports it lost. A refusal (RunFencedError: the run is another server's
 * now) is not a failure of the store and is never retried.
 */
export class EventWriter {
  readonly #store: RunStore
  readonly #onError: (error: unknown, lost: number) => void
  readonly #options: EventWriterOptions
  #pending: AgentEvent[] = []
  #scheduled: NodeJS.Immediate | undefined
  /** Settles when every batch handed to the store so far is written (or reported lost). */
  #written: Promise<void> = Promise.resolve()
  /** Events pushed and not yet written. */
  #buffered = 0
  #outage: { since: number; failedWrites: number } | undefined
  /** Runs told of an overflow since the buffer was last empty. */
  readonly #overflowed = new Set<string>()
  #retry: { timer: NodeJS.Timeout; wake: () => void } | undefined
  #closed = false

  constructor(
    store: RunStore,
    onError: (error: unknown, lost: number) => void,
    options: EventWriterOptions = {},
  ) {
    this.#store = store
    this.#onError = onError
    this.#options = options
  }

  /** Events pushed and not yet written. */
  get buffered(): number {
    return this.#buffered
  }

  /** Stores `event`, unless it is live-only (text as it streams: see isLiveOnly). */
  push(event: AgentEvent): void {
    if (isLiveOnly(event)) return
    if (this.#closed) {
      this.#onError(new WriterClosedError(), 1)
      return
    }
    if (this.#buffered >= (this.#options.maxBuffered ?? 10_000)) this.#overflow(event.runId)
    this.#buffered++
    this.#pending.push(event)
    this.#scheduled ??= setImmediate(() => void this.flush())
  }

  /**
   * Runs another store write in the stream's order: after every event pushed
   * so far is written, before any pushed later (a run is created before its
   * first event, ended after its last). Its failure is the caller's, and never
   * stops the writes after it.
   */
  inOrder<T>(work: () => Promise<T>): Promise<T> {
    void this.flush()
    const result = this.#written.then(work)
    this.#written = result.then(
      () => {},
      () => {},
    )
    return result
  }

  /**
   * Writes what is queued now, after the batches before it; settles once it is
   * written, however long the store is away (or once the writer is closed).
   * Never rejects: the stream never hears of the store.
   */
  flush(): Promise<void> {
    if (this.#scheduled) clearImmediate(this.#scheduled)
    this.#scheduled = undefined
    if (this.#pending.length === 0) return this.#written
    const batch = this.#pending
    this.#pending = []
    this.#written = this.#written.then(() => this.#write(batch))
    return this.#written
  }

  /**
   * Stops retrying and writing: what is still unwritten is reported lost, and
   * no timer is left behind. Flush first to write what the store will take.
   */
  close(): Promise<void> {
    this.#closed = true
    if (this.#scheduled) clearImmediate(this.#scheduled)
    this.#scheduled = undefined
    if (this.#retry) {
      clearTimeout(this.#retry.timer)
      this.#retry.wake()
    }
    if (this.#pending.length > 0) {
      this.#lose(new WriterClosedError(), this.#pending.length)
      this.#pending = []
    }
    return this.#written
  }

  async #write(batch: readonly AgentEvent[]): Promise<void> {
    let delayMs = this.#options.retryMs ?? 100
    for (;;) {
      if (this.#closed) {
        this.#lose(new WriterClosedError(), batch.length)
        return
      }
      try {
        await this.#store.appendEvents(batch, this.#options.owner)
        this.#drained(batch.length)
        this.#recovered()
        return
      } catch (error) {
        if (error instanceof RunFencedError) {
          this.#drained(batch.length)
          this.#recovered()
          this.#options.onFenced?.(error)
          return
        }
        this.#failed(error)
      }
      await this.#sleep(delayMs)
      delayMs = Math.min(delayMs * 2, this.#options.maxRetryMs ?? 2_000)
    }
  }

  #failed(error: unknown): void {
    if (!this.#outage) {
      this.#outage = { since: Date.now(), failedWrites: 0 }
      this.#options.onOutage?.(error)
    }
    this.#outage.failedWrites++
    this.#options.onRetry?.(error)
  }

  #recovered(): void {
    const outage = this.#outage
    if (!outage) return
    this.#outage = undefined
    this.#options.onRecovered?.({ durationMs: Date.now() - outage.since, failedWrites: outage.failedWrites })
  }

  #overflow(runId: string): void {
    if (this.#overflowed.has(runId)) return
    this.#overflowed.add(runId)
    this.#options.onOverflow?.(runId)
  }

  /** `count` events left the buffer, written or lost. */
  #drained(count: number): void {
    this.#buffered -= count
    if (this.#buffered === 0) this.#overflowed.clear()
  }

  #lose(error: unknown, lost: number): void {
    this.#drained(lost)
    this.#onError(error, lost)
  }

  /** Waits before a retry; close() ends the wait at once. */
  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        this.#retry = undefined
        resolve()
      }
      this.#retry = { timer: setTimeout(wake, ms), wake }
    })
  }
}
