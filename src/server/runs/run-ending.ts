import { type AgentEvent, type AgentEventOf, stampEvent } from '../../events/events.ts'
import type { Logger } from '../../log.ts'
import { isAbortError } from '../../tool.ts'
import { describeError } from '../../util/describe-error.ts'
import type { LiveRun } from './live-run.ts'

/** The `done` of a run that ended by an exception (or without its own `done`). */
export function finalEvent(run: LiveRun, error: unknown): AgentEvent {
  const message = describeError(error)
  const view = run.snapshot()
  const aborted = isAbortError(error) || run.signal.aborted
  return stampEvent(
    {
      type: 'done',
      reason: aborted ? 'user_abort' : 'error',
      result: { success: false, text: aborted ? 'The run was aborted.' : `The run failed: ${message}` },
      usage: view.usage,
      steps: view.steps,
      durationMs: Math.max(0, Date.now() - Date.parse(view.createdAt)),
    },
    run.info.id,
    run.lastSeq + 1,
    new Date(),
  )
}

export const backlogText =
  'The run was stopped: the store (SEXTANT_DB) did not take its events for so long that too many waited ' +
  'to be written. None was dropped: they are stored once the store answers again.'

/** A run stopped because its events could not be stored ends failed and says so, not as aborted by a person. */
export function stoppedForBacklog(done: AgentEventOf<'done'>): AgentEventOf<'done'> {
  return { ...done, reason: 'error', result: { success: false, text: backlogText } }
}

export const takenOverText =
  'The run was taken over by another server: this server stalled past its lease, and another one ended ' +
  "the run (or claimed it). This server stopped it; the stored run keeps the other server's ending."

/** The last event a client of a run this server lost hears from it: the run goes on (or ended) elsewhere. */
export function takenOverEvent(run: LiveRun): AgentEvent {
  return stampEvent(
    { type: 'error', message: takenOverText, retryable: false },
    run.info.id,
    run.lastSeq + 1,
    new Date(),
  )
}

/** One log line per change of event type: what a run is doing, without every delta. */
export function logTransition(log: Logger, event: AgentEvent): void {
  switch (event.type) {
    case 'done':
      log.info(
        {
          seq: event.seq,
          type: event.type,
          reason: event.reason,
          success: event.result.success,
          usage: event.usage,
        },
        'run done',
      )
      return
    case 'error':
      log.warn(
        { seq: event.seq, type: event.type, retryable: event.retryable, message: event.message },
        'run error',
      )
      return
    case 'step_started':
      log.info({ seq: event.seq, type: event.type, step: event.step }, 'run transition')
      return
    case 'tool_call_start':
      log.info({ seq: event.seq, type: event.type, tool: event.tool, callId: event.callId }, 'run transition')
      return
    default:
      log.info({ seq: event.seq, type: event.type }, 'run transition')
  }
}
