import { hostname } from 'node:os'

/**
 * Which process runs a run, so that any later reader (a restarted `serve`,
 * `sextant runs`) can tell a run that is live elsewhere from one whose process
 * died: the owner's pid and host, and a heartbeat the owner renews.
 */

export interface RunOwner {
  pid: number
  host: string
  /**
   * Where other servers reach this one (SEXTANT_INTERNAL_URL, else the address
   * it listens on): kept with its runs in a shared store, so the routes that
   * need the run's own process (live frames, takeover, input) are relayed to it.
   */
  url?: string
}

/** An owner as recorded with its runs. */
export interface RecordedOwner extends RunOwner {
  /** ISO time of the owner's last heartbeat (its run's creation before the first). */
  seenAt: string
}

/** How often a process with live runs renews their lease (SEXTANT_HEARTBEAT_MS for `serve`). */
export const ownerHeartbeatMs = 5_000

/**
 * An owner silent for this long is gone, on whatever host or in whatever pid
 * namespace it ran (SEXTANT_LEASE_MS for `serve`). With the heartbeat's period
 * on top, another server ends a dead server's runs within 25 s.
 */
export const ownerLeaseMs = 20_000

export function thisProcess(): RunOwner {
  return { pid: process.pid, host: hostname() }
}

/**
 * Whether a run's owner is gone. On this host a dead pid says so at once. A
 * pid cannot be checked across hosts or containers, and may have been reused:
 * there the lease decides, since a live owner renews it every few seconds.
 */
export function isOwnerGone(
  owner: RecordedOwner,
  now: Date,
  self: RunOwner = thisProcess(),
  leaseMs = ownerLeaseMs,
): boolean {
  if (owner.host === self.host && !isOtherProcessAlive(owner.pid)) return true
  return now.getTime() - Date.parse(owner.seenAt) > leaseMs
}

/**
 * Whether another process with this pid runs. Our own pid counts as dead: a
 * reader checks before it starts any run, so a run recorded under its pid was
 * left by an earlier process that had the same pid (pid 1 in a container).
 */
export function isOtherProcessAlive(pid: number): boolean {
  if (pid === process.pid) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Whether two owners are the same process. */
export function isSameOwner(a: RunOwner, b: RunOwner): boolean {
  return a.pid === b.pid && a.host === b.host
}

/** Renews the lease of this process's live runs every `intervalMs` until stopped; never keeps the process alive. */
export function startHeartbeat(beat: () => void, intervalMs = ownerHeartbeatMs): { stop(): void } {
  const timer = setInterval(beat, intervalMs)
  timer.unref()
  return { stop: () => clearInterval(timer) }
}
