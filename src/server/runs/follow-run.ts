import type { AgentEvent } from '../../events/events.ts'
import type { RunStore } from '../../store/run-store.ts'
import { isSharedStore } from '../../store/shared.ts'
import { withDeadline } from '../../util/deadline.ts'
import type { StreamEvent } from '../http/sse.ts'
import { OwnerText } from '../routes/owner-text.ts'
import type { LiveRun } from './live-run.ts'
import type { QueuePositions, RunWakeups } from './wakeups.ts'

export interface FollowSources {
  store: RunStore
  wakeups: RunWakeups
  /** The places of the queued runs followed here, read once per move of the queue for all (shared store only). */
  positions: QueuePositions | undefined
  /** The run when it executes in this process now: followed from memory, without the store. */
  live(runId: string): LiveRun | undefined
  /** A missed notification costs at most this long (a listener reconnecting, say). */
  pollMs: number
  /** The live-only events of a run another server runs, from its own stream; absent: the store's alone. */
  ownerText?: (runId: string, signal: AbortSignal) => AsyncIterable<AgentEvent>
}

/**
 * A run's events after `afterSeq`, then every new one until `done`, wherever
 * the run executes. A run of this process is followed from memory; another
 * server's run from a shared store, woken by its notifications, in seq order
 * without gaps: an event whose predecessor is not visible yet (a batch
 * committing out of order) waits for the next read. While the run is queued,
 * its queue position is sent whenever it changes. With an embedded store, a
 * run of no live process is replayed as stored, as before.
 */
export async function* followRun(
  sources: FollowSources,
  runId: string,
  afterSeq: number,
  signal: AbortSignal,
): AsyncGenerator<StreamEvent, void, undefined> {
  const { store, wakeups } = sources
  const shared = isSharedStore(store)
  let last = afterSeq
  let position: number | undefined
  // Another server's run is woken by its own channel, listened to while followed here.
  let stopListening: (() => Promise<void>) | undefined
  let stopWaiting: (() => void) | undefined
  const ownerText = sources.ownerText
  // The model's text as it streams on the owner, put between the stored events where it came.
  const text = ownerText ? new OwnerText((opened) => ownerText(runId, opened), signal) : undefined
  try {
    while (!signal.aborted) {
      const live = sources.live(runId)
      if (live) {
        for await (const event of live.follow(last, signal)) {
          yield event
          last = event.seq
          if (endsRun(event, runId)) return
        }
        // Another server took the run over: its last event said so, and what this server did next is not the run's.
        if (signal.aborted || live.isLost) return
        // Ended here without `done` reaching us (the subscriber left, or the run ended meanwhile): the store has the rest.
        continue
      }
      if (shared && !stopListening) stopListening = await store.followEvents(runId, () => wakeups.wake(runId))
      const wake = wakeups.next(runId)
      try {
        for (const event of inOrder(await store.events(runId, last), last)) {
          if (text) yield* text.take(last)
          yield event
          last = event.seq
          if (endsRun(event, runId)) return
        }
        if (!shared) return
        const run = await store.getRun(runId)
        if (!run) return
        if (run.status === 'queued') {
          stopWaiting ??= sources.positions?.follow(runId)
          const now = await sources.positions?.of(runId)
          if (now !== undefined && now !== position) {
            position = now
            yield { type: 'queue_position', runId, position: now, at: new Date().toISOString() }
          }
        } else if (run.status === 'running') {
          text?.read()
        } else {
          // Ended: whatever is stored is all there will be.
          for (const event of await store.events(runId, last)) yield event
          return
        }
        if (text) yield* text.until(wake.woken, last, sources.pollMs)
        else await withDeadline(wake.woken, sources.pollMs, signal).catch(() => {})
      } finally {
        wake.cancel()
      }
    }
  } finally {
    // Not awaited: the follower is let go at once; the channel is dropped once nobody here follows it.
    stopListening?.().catch(() => {})
    stopWaiting?.()
  }
}

/** The run's own `done`: a sub-agent's (forwarded into its parent's stream) ends only that child. */
export function endsRun(event: StreamEvent, runId: string): boolean {
  return event.type === 'done' && event.runId === runId
}

/** The events continuing `last` without a gap. */
function* inOrder(events: AgentEvent[], last: number): Generator<AgentEvent> {
  let expected = last + 1
  for (const event of events) {
    // A client's Last-Event-ID beyond what is stored skips ahead, like LiveRun.follow.
    if (event.seq <= last) continue
    if (event.seq !== expected) return
    yield event
    expected = event.seq + 1
  }
}
