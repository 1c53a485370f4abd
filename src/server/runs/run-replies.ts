import type { AgentEvent } from '../../events/events.ts'
import type { StoredRun } from '../../store/run-store.ts'
import type { ReplyMessage, SharedRunStore } from '../../store/shared.ts'
import { RunFencedError } from '../../store/store-errors.ts'
import { settlesWithin } from '../../util/deadline.ts'
import type { StreamEvent } from '../http/sse.ts'
import { endsRun } from './follow-run.ts'
import type { LiveRun } from './live-run.ts'

/** What became of a reply: delivered to the run, or refused as not awaited or already given. */
export type ReplyOutcome =
  | 'delivered'
  | 'not_pending'
  | 'already_replied'
  | 'ended'
  | 'not_found'
  /** Addressed by call id to a run whose sub-agents wait with that same id. */
  | 'ambiguous'

/**
 * A reply with a shared store: checked against the run (here, from memory;
 * elsewhere, from its stored events), recorded once, then delivered: here at
 * once, elsewhere through the store's notification to the run's owner.
 */
export async function replyThroughStore(
  shared: SharedRunStore,
  run: LiveRun | undefined,
  message: ReplyMessage,
): Promise<ReplyOutcome> {
  if (run) {
    const pending = pendingReply(run, message)
    if (pending !== 'pending') return pending
  } else {
    const stored = await shared.getRun(message.runId)
    if (!stored) return 'not_found'
    if (stored.status !== 'running') return 'ended'
    if (!awaitsReply(await shared.events(message.runId), message)) return 'not_pending'
  }
  const recorded = await shared.recordReply(message).catch((error: unknown) => {
    // Ended since it was read (here: another server ended it, and this one has not heard yet).
    if (error instanceof RunFencedError) return 'ended' as const
    throw error
  })
  if (recorded === 'ended') return recorded
  if (!recorded) return 'already_replied'
  if (run) settleReply(run, message)
  return 'delivered'
}

/**
 * Aborts a run not live here: a queued one is taken out of the queue (and
 * `withdrawn` called: this server ended it); a running one's owner is told,
 * and its state answered once its `done` is stored (or after `waitMs`).
 */
export async function abortElsewhere(
  shared: SharedRunStore,
  runId: string,
  waitMs: number,
  on: { follow: (signal: AbortSignal) => AsyncIterable<StreamEvent>; withdrawn: () => void },
): Promise<StoredRun | undefined> {
  const { follow } = on
  const stored = await shared.getRun(runId)
  if (!stored || (stored.status !== 'running' && stored.status !== 'queued')) return stored
  if (stored.status === 'queued' && (await shared.withdrawQueuedRun(runId, new Date()))) {
    on.withdrawn()
    return shared.getRun(runId)
  }
  await shared.sendControl({ kind: 'abort', runId })
  const gone = new AbortController()
  const ended = (async () => {
    for await (const event of follow(gone.signal)) if (endsRun(event, runId)) return
  })()
  await settlesWithin(ended, waitMs)
  gone.abort()
  return shared.getRun(runId)
}

/** Delivers a reply to the run (or sub-agent) waiting for it here. */
export function settleReply(run: LiveRun, message: ReplyMessage): ReplyOutcome {
  if (message.kind === 'answer')
    return run.questions.settle(message.id, message.answer) ? 'delivered' : 'not_pending'
  const key = run.confirmationFor(message.runId, message.id)
  if (key === 'ambiguous') return key
  return key !== undefined && run.confirmations.settle(key, message.approve) ? 'delivered' : 'not_pending'
}

function pendingReply(run: LiveRun, message: ReplyMessage): 'pending' | 'not_pending' | 'ambiguous' {
  if (message.kind === 'answer') return run.questions.isPending(message.id) ? 'pending' : 'not_pending'
  const key = run.confirmationFor(message.runId, message.id)
  return key === 'ambiguous' ? key : key === undefined ? 'not_pending' : 'pending'
}

/** Whether a run's stored events ask for this reply and have not had it. */
function awaitsReply(events: readonly AgentEvent[], message: ReplyMessage): boolean {
  let asked = false
  for (const event of events) {
    if (message.kind === 'confirmation') {
      if (event.type === 'confirmation_required' && event.callId === message.id) asked = true
      if (event.type === 'confirmation_resolved' && event.callId === message.id) return false
    } else {
      if (event.type === 'question' && event.questionId === message.id) asked = true
      if (event.type === 'answer' && event.questionId === message.id) return false
    }
  }
  return asked
}

/**
 * Waits for the answer to the run's question; after `timeoutMs` without one,
 * the run carries on with a note saying so. Rejects with AbortError when the
 * run's signal aborts first.
 */
export async function waitForAnswer(
  run: LiveRun,
  questionId: string,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<string> {
  const timeout = new AbortController()
  const either = AbortSignal.any([signal, timeout.signal])
  const timer = setTimeout(() => timeout.abort(), timeoutMs)
  try {
    return await run.questions.wait(questionId, either)
  } catch (error) {
    if (timeout.signal.aborted && !signal.aborted) {
      run.questions.forget(questionId)
      return `(No answer came within ${Math.round(timeoutMs / 1000)} s. Continue without it.)`
    }
    throw error
  } finally {
    clearTimeout(timer)
  }
}
