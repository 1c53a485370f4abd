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
