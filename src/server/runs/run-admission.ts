import type { Logger } from '../../log.ts'
import type { RunOwner } from '../../store/owner.ts'
import type { RunStore, StoredRun } from '../../store/run-store.ts'
import { isSharedStore, type SharedRunStore } from '../../store/shared.ts'
import { type RunRequest, RunRequestSchema } from '../http/schemas.ts'
import type { LiveRunInfo } from './live-run.ts'
import { newRunInfo, type RunPlan, storedRunInfo } from './run-plan.ts'
import type { RunSlot, RunSlots } from './run-slots.ts'

export class TooManyRunsError extends Error {
  override name = 'TooManyRunsError'
  readonly retryAfterSeconds: number
  constructor(limit: number, retryAfterSeconds: number) {
    super(`${limit} runs are live, the most this server runs at once (SEXTANT_MAX_RUNS). Retry later.`)
    this.retryAfterSeconds = retryAfterSeconds
  }
}

export class QueueFullError extends Error {
  override name = 'QueueFullError'
  readonly retryAfterSeconds: number
  constructor(limit: number, retryAfterSeconds: number) {
    super(
      `The queue is full: ${limit} runs are waiting, the most it holds (SEXTANT_QUEUE_MAX). Retry after ${retryAfterSeconds} s.`,
    )
    this.retryAfterSeconds = retryAfterSeconds
  }
}

export class ShuttingDownError extends Error {
  override name = 'ShuttingDownError'
  constructor() {
    super('The server is shutting down and starts no new runs.')
  }
}

export interface RunAdmissionOptions {
  store: RunStore
  /** Seconds a client is told to wait after a 429. */
  retryAfterSeconds?: number
  /** With a shared store: POST queues a run when every slot is taken, and any server claims it (SEXTANT_QUEUE). */
  queue?: boolean
  /** At most this many runs wait in the queue; beyond, a request is refused (SEXTANT_QUEUE_MAX). */
  queueMax?: number
  /** How long a queued run waits when its request does not say (SEXTANT_QUEUE_TIMEOUT_MS). */
  queueTimeoutMs?: number
  log: Logger
}

/** What admission needs of the rest of the server. */
export interface AdmissionParts {
  owner: RunOwner
  slots: RunSlots
  /** What a request runs; throws ModelConfigError or ReplayError. */
  plan(request: RunRequest): Promise<RunPlan>
  /** Starts an admitted, stored run here, holding `slot` until it ends. */
  launch(info: LiveRunInfo, request: RunRequest, plan: RunPlan, slot: RunSlot): void
  /** Ends a claimed run this server cannot run, giving `slot` back once it is stored. */
  fail(info: LiveRunInfo, error: unknown, slot: RunSlot): void
}

/**
 * Which runs start, and when: a request runs at once when a slot is free
 * (SEXTANT_MAX_RUNS), waits in the shared queue (SEXTANT_QUEUE), or is
 * refused (429); a server claims queued runs while it has free slots, and
 * admits nothing once it is closing.
 */
export class RunAdmission {
  readonly #options: RunAdmissionOptions
  readonly #parts: AdmissionParts
  #closing = false

  constructor(options: RunAdmissionOptions, parts: AdmissionParts) {
    this.#options = options
    this.#parts = parts
  }

  get queueing(): boolean {
    return this.#queue !== undefined
  }

  /** The shared queue, when runs wait in one. */
  get #queue(): SharedRunStore | undefined {
    const store = this.#options.store
    return this.#options.queue && isSharedStore(store) ? store : undefined
  }

  /**
   * Starts a run, or queues it (SEXTANT_QUEUE) when every slot is taken; its
   * id either way. Throws ModelConfigError, ReplayError, TooManyRunsError,
   * QueueFullError or ShuttingDownError before anything starts.
   */
  async start(request: RunRequest): Promise<string> {
    if (this.#closing) throw new ShuttingDownError()
    const plan = await this.#parts.plan(request)
    const queue = this.#queue
    // A run with secrets (or a proxy, whose credentials are secrets too) is never queued: the queue is a
    // table, and secrets are never stored. It runs here when a slot is free, else the caller hears 429.
    if (queue && request.secrets === undefined && request.proxy === undefined) {
      // Queued in order; this server claims it at once when it has a slot, like any other.
      const info = newRunInfo(plan, request)
      const { queueMax, queueTimeoutMs, retryAfterSeconds = 5 } = this.#options
      const timeoutMs = request.queueTimeoutMs ?? queueTimeoutMs
      const queued = await queue.enqueueRun({ ...info, owner: this.#parts.owner }, request, {
        priority: request.priority ?? 0,
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
        ...(queueMax === undefined ? {} : { max: queueMax }),
      })
      if (!queued) throw new QueueFullError(queueMax ?? 0, retryAfterSeconds)
      void this.claimQueued()
      return info.id
    }
    const slot = this.#parts.slots.take()
    if (!slot) throw new TooManyRunsError(this.#parts.slots.max, this.#options.retryAfterSeconds ?? 5)
    const info = newRunInfo(plan, request)
    try {
      await this.#options.store.createRun({ ...info, owner: this.#parts.owner })
    } catch (error) {
      slot.release()
      throw error
    }
    this.#parts.launch(info, request, plan, slot)
    return info.id
  }

  /**
   * Slots for an eval's runs: as many of `count` as are free, at least one.
   * An eval is never queued (its runs live in its own stream, and may carry
   * secrets, which the queue never stores): a full server refuses it with
   * TooManyRunsError, as it refuses a run with secrets. Each slot given back
   * lets this server claim a queued run.
   */
  takeSlots(count: number): RunSlot[] {
    if (this.#closing) throw new ShuttingDownError()
    const slots: RunSlot[] = []
    while (slots.length < count) {
      const slot = this.#parts.slots.take()
      if (!slot) break
      slots.push({
        release: () => {
          slot.release()
          void this.claimQueued()
        },
      })
    }
    if (slots.length === 0)
      throw new TooManyRunsError(this.#parts.slots.max, this.#options.retryAfterSeconds ?? 5)
    return slots
  }

  /** Claims queued runs while this server has free slots. */
  async claimQueued(): Promise<void> {
    const queue = this.#queue
    if (!queue) return
    while (!this.#closing) {
      const slot = this.#parts.slots.take()
      if (!slot) return
      const claimed = await queue.claimQueuedRun(this.#parts.owner, new Date()).catch((error: unknown) => {
        this.#options.log.error({ err: error }, 'could not claim a queued run')
      })
      if (!claimed) {
        slot.release()
        return
      }
      await this.#startClaimed(claimed.run, claimed.request, slot)
    }
  }

  /** Admits nothing more: new requests are refused, queued runs are left to other servers. */
  close(): void {
    this.#closing = true
  }

  /** A claimed run starts here; a request this server cannot run (its model unknown here) ends it failed. */
  async #startClaimed(stored: StoredRun, body: unknown, slot: RunSlot): Promise<void> {
    const info = storedRunInfo(stored)
    try {
      const request = RunRequestSchema.parse(body)
      this.#parts.launch(info, request, await this.#parts.plan(request), slot)
    } catch (error) {
      this.#parts.fail(info, error, slot)
    }
  }
}
