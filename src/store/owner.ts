import { randomBytes } from 'node:crypto'
import { readlinkSync } from 'node:fs'
import { hostname } from 'node:os'

/**
 * Which process runs a run, so that any later reader (a restarted `serve`,
 * `sextant runs`, another server) can tell a run that is live elsewhere from
 * one whose process died: the owner's pid, where that pid means something,
 * an id of its own, and a heartbeat the owner renews.
 */

export interface RunOwner {
  pid: number
  /**
   * The host, and the pid namespace on it, where `pid` names the process:
   * only there can a reader check the pid (two containers sharing a host
   * name each have their own pid 1).
   */
  host: string
  /**
   * Random, drawn once per process: pid and host alone are not unique (node
   * as pid 1 in two containers with one host name; a restarted container
   * that got its pid back).
   */
  id: string
  /**
   * Where other servers reach this one (SEXTANT_INTERNAL_URL, else the address
   * it listens on): kept with its runs in a shared store, so the routes that
   * need the run's own process (live frames, takeover, input) are relayed to it.
   */
  url?: string
}

/** An owner as recorded with its runs. */
export interface RecordedOwner extends RunOwner {
  /** The time of the owner's last heartbeat (its run's creation before the first), as the store recorded it. */
  seenAt: string
  /**
   * How long the owner has been silent, measured on the store's clock (the
   * database's `now()` for PostgreSQL): never on a server's own clock, which
   * may run behind or ahead of the others'.
   */
  silentMs: number
}

/** How often a process with live runs renews their lease (SEXTANT_HEARTBEAT_MS for `serve`). */
export const ownerHeartbeatMs = 5_000

/**
 * An owner silent for this long is gone, on whatever host or in whatever pid
 * namespace it ran (SEXTANT_LEASE_MS for `serve`). With the heartbeat's period
 * on top, another server ends a dead server's runs within 25 s.
 */
export const ownerLeaseMs = 20_000

/** This process, drawn once: every part of it (its runs, its sweeps, its fences) is one owner. */
const self: RunOwner = Object.freeze({
  pid: process.pid,
  host: pidScope(),
  id: randomBytes(8).toString('hex'),
})

export function thisProcess(): RunOwner {
  return self
}

/** The host name, with the pid namespace when the system says which (Linux). */
function pidScope(): string {
  try {
    // "pid:[4026531836]": unique on this kernel while the namespace lives.
    return `${hostname()} ${readlinkSync('/proc/self/ns/pid')}`
  } catch {
    return hostname()
  }
}

/**
 * Whether a run's owner is gone. Where its pid can be checked (same host,
 * same pid namespace), a dead pid says so at once. Elsewhere a pid says
 * nothing, and may have been reused: there the lease decides, on the
 * store's clock (RecordedOwner.silentMs), since a live owner renews it every
 * few seconds.
 */
export function isOwnerGone(
  owner: RecordedOwner,
  self: RunOwner = thisProcess(),
  leaseMs = ownerLeaseMs,
): boolean {
  if (isSameOwner(owner, self)) return false
  if (owner.host === self.host && !isOtherProcessAlive(owner.pid)) return true
  return owner.silentMs > leaseMs
}

/**
 * Whether another process with this pid runs. Our own pid counts as dead: an
 * owner with our pid and host but another id is an earlier process that had
 * the same pid (pid 1 in a restarted container).
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
  return a.id === b.id && a.pid === b.pid && a.host === b.host
}

/** Renews the lease of this process's live runs every `intervalMs` until stopped; never keeps the process alive. */
export function startHeartbeat(beat: () => void, intervalMs = ownerHeartbeatMs): { stop(): void } {
  const timer = setInterval(beat, intervalMs)
  timer.unref()
  return { stop: () => clearInterval(timer) }
}

/** How long an owner last seen at `seenAt` has been silent at `at`, for the stores that share this process's clock. */
export function silentSince(seenAt: string, at: Date): number {
  return at.getTime() - Date.parse(seenAt)
}
