import type { Logger } from '../../log.ts'
import { ownerHeartbeatMs, ownerLeaseMs, type RunOwner, startHeartbeat } from '../../store/owner.ts'
import type { RunStore } from '../../store/run-store.ts'
import { type ControlMessage, isSharedStore } from '../../store/shared.ts'
import { Coordinator } from './coordinator.ts'
import type { LiveRuns } from './live-runs.ts'
import type { QueuePositions, RunWakeups } from './wakeups.ts'

export interface RunOwnershipOptions {
  store: RunStore
  /** Lease renewal period (SEXTANT_HEARTBEAT_MS). */
  heartbeatMs?: number
  /** A server silent this long is gone (SEXTANT_LEASE_MS). */
  leaseMs?: number
  log: Logger
}

/** What ownership needs of the rest of the server. */
export interface OwnershipParts {
  owner: RunOwner
  live: LiveRuns
  wakeups: RunWakeups
  /** Told when the queue moves (shared store only). */
  positions: QueuePositions | undefined
  /** A message from another server for a run that may be live here. */
  onControl(message: ControlMessage): void
  /** The queue moved, or a slot may be free: claim what fits. */
  onQueue(): void
  /** Runs live here whose lease another server took (it ended or claimed them): stop them. */
  onLost(runIds: string[]): void
  /** Runs this server's sweep ended for a stopped server, or for waiting too long. */
  onEnded?(runIds: string[]): void
}

/**
 * This process's hold on its runs: the lease it renews so that no other
 * reader takes them for dead, and the news that it lost one. With a shared
 * store the coordinator renews it on every beat (an eval's runs and
 * sub-agents are this server's too); with an embedded one, a heartbeat runs
 * while any run is live here. Either way one beat renews (#renew): a live
 * run the store did not renew is another's now, and is stopped here within
 * one beat of this process running again.
 */
export class RunOwnership {
  readonly #options: RunOwnershipOptions
  readonly #parts: OwnershipParts
  /** With a shared store: this server among the others. */
  readonly #coordinator: Coordinator | undefined
  #heartbeat: { stop(): void } | undefined

  constructor(options: RunOwnershipOptions, parts: OwnershipParts) {
    this.#options = options
    this.#parts = parts
    const store = options.store
    if (isSharedStore(store)) {
      this.#coordinator = new Coordinator({
        store,
        owner: parts.owner,
        wakeups: parts.wakeups,
        ...(parts.positions ? { positions: parts.positions } : {}),
        heartbeatMs: options.heartbeatMs ?? ownerHeartbeatMs,
        leaseMs: options.leaseMs ?? ownerLeaseMs,
        log: options.log,
        renew: (at) => this.#renew(at),
        onControl: (message) => parts.onControl(message),
        onQueue: () => parts.onQueue(),
        ...(parts.onEnded ? { onEnded: parts.onEnded } : {}),
      })
    }
  }

  /** With a shared store, starts listening to the other servers; resolves once listening. */
  async attach(): Promise<void> {
    await this.#coordinator?.start()
  }

  /** A run went live here. */
  runStarted(): void {
    if (this.#coordinator) return
    this.#heartbeat ??= startHeartbeat(() => {
      this.#renew(new Date()).catch((error: unknown) => {
        this.#options.log.warn({ err: error }, 'could not renew the lease of the live runs')
      })
    }, this.#options.heartbeatMs)
  }

  /** A run here ended: the heartbeat stops with the last one. */
  runEnded(): void {
    if (this.#parts.live.size === 0) this.#stopHeartbeat()
  }

  /** Stops listening to the other servers (and sweeping and claiming with them); the heartbeat runs on. */
  detach(): void {
    this.#coordinator?.stop()
  }

  /** Stops renewing the lease: this process runs nothing any more. */
  stop(): void {
    this.#stopHeartbeat()
  }

  /** Renews the lease; the live runs it did not renew are lost. */
  async #renew(at: Date): Promise<void> {
    const { live, owner } = this.#parts
    // Taken before asking: a run admitted while the store answers was created after the renewal read its rows.
    const judged = live.all()
    const renewed = new Set(await this.#options.store.heartbeat(owner, at))
    // A run that ended here has its `done` before the store hears of it: not renewed, and not lost either.
    const lost = judged.filter((run) => !run.isDone && !renewed.has(run.info.id)).map((run) => run.info.id)
    if (lost.length > 0) this.#parts.onLost(lost)
  }

  #stopHeartbeat(): void {
    this.#heartbeat?.stop()
    this.#heartbeat = undefined
  }
}
