import type { Logger } from '../../log.ts'
import { isOwnerGone, type RunOwner } from '../../store/owner.ts'
import type { ControlMessage, SharedRunStore } from '../../store/shared.ts'
import type { QueuePositions, RunWakeups } from './wakeups.ts'

export interface CoordinatorOptions {
  store: SharedRunStore
  owner: RunOwner
  wakeups: RunWakeups
  /** The places of queued runs followed here: stale at each move of the queue, and at each beat. */
  positions?: QueuePositions
  /** How often the lease is renewed, dead servers' runs are ended and the queue is checked. */
  heartbeatMs: number
  /** A server silent this long is gone. */
  leaseMs: number
  log: Logger
  /** Renews this server's lease on its runs (RunOwnership's beat); rejects when the store cannot. */
  renew(at: Date): Promise<void>
  /** A message for the run's owner; ignored when the run is not live here. */
  onControl(message: ControlMessage): void
  /** The queue moved, or a slot may be free: claim what fits. */
  onQueue(): void
  /** This server ended these runs for others (their server stopped, or they waited too long): their webhooks are its to tell. */
  onEnded?(runIds: string[]): void
}

/**
 * This server's part among the servers sharing a store: it listens to the
 * others (control, queue; events are listened to per run, while followed), renews the lease of its runs (and so
 * learns which it lost), ends the runs of servers that stopped beating, and
 * looks at the queue on every beat in case a notification was missed. Its
 * timer never keeps the process alive.
 */
export class Coordinator {
  readonly #options: CoordinatorOptions
  #timer: NodeJS.Timeout | undefined
  #sweeping = false

  constructor(options: CoordinatorOptions) {
    this.#options = options
  }

  async start(): Promise<void> {
    const { store, wakeups } = this.#options
    await store.listen({
      onControl: (message) => this.#options.onControl(message),
      onQueue: () => {
        // Followers of queued runs show their new position (read once for all); slots may claim.
        this.#options.positions?.moved()
        wakeups.wakeAll()
        this.#options.onQueue()
      },
    })
    this.#timer = setInterval(() => void this.#beat(), this.#options.heartbeatMs)
    this.#timer.unref()
    void this.#beat()
  }

  stop(): void {
    clearInterval(this.#timer)
    this.#timer = undefined
  }

  async #beat(): Promise<void> {
    if (this.#sweeping) return
    this.#sweeping = true
    const { store, owner, log, leaseMs } = this.#options
    try {
      const at = new Date()
      // Every beat, not only with live API runs: an eval's runs and a run's sub-agents are this server's too.
      await this.#options.renew(at)
      // Silence is measured on the database's clock (the store's), never on this server's.
      const ended = await store.markInterruptedRuns({
        at,
        isOwnerGone: (other) => isOwnerGone(other, owner, leaseMs),
      })
      if (ended.length > 0) log.warn({ runs: ended }, 'ended the runs of a server that stopped')
      const expired = await store.expireQueuedRuns(at)
      if (expired.length > 0) log.warn({ runs: expired }, 'ended queued runs that waited past their timeout')
      // In case a move of the queue was not heard: places are read afresh at least once a beat.
      this.#options.positions?.moved()
      if (ended.length + expired.length > 0) this.#options.onEnded?.([...ended, ...expired])
      this.#options.onQueue()
    } catch (error) {
      log.warn({ err: error }, 'could not renew leases or check for stopped servers')
    } finally {
      this.#sweeping = false
    }
  }
}
