import type { AgentEventOf } from '../events/events.ts'
import type { McpBackend } from './backend.ts'
import { RunReplies } from './mcp-replies.ts'
import { StepProgressTracker } from './step-progress.ts'
import type { TaskAnswer } from './task-answer.ts'
import type { TaskHost } from './task-host.ts'

/**
 * Follows a started run to its `done`: reports each step as progress, answers
 * its confirmations and questions through the host, and aborts it when the
 * caller cancels. Resolves with the answer; undefined when cancelled (the
 * cancelled request gets no answer).
 */
export async function runToAnswer(
  backend: McpBackend,
  runId: string,
  host: TaskHost,
): Promise<TaskAnswer | undefined> {
  const following = new AbortController()
  // Cancelling the request aborts the run; the run's own `done` (user_abort) then ends the stream.
  const onCancel = () => void backend.abort(runId).catch(() => {})
  host.signal.addEventListener('abort', onCancel, { once: true })
  if (host.signal.aborted) onCancel()
  const progress = new StepProgressTracker(runId)
  const replies = new RunReplies(backend, host, AbortSignal.any([host.signal, following.signal]))
  let done: AgentEventOf<'done'> | undefined
  try {
    for await (const event of backend.follow(runId, following.signal)) {
      const update = progress.next(event)
      if (update && !host.signal.aborted) await host.progress(update).catch(() => {})
      replies.handle(event)
      if (event.type === 'done' && event.runId === runId) {
        done = event
        break
      }
    }
  } finally {
    following.abort()
    host.signal.removeEventListener('abort', onCancel)
  }
  await replies.settled()
  if (host.signal.aborted) return undefined
  // The stream ended before the run did (this process is shutting down): the run's fate is in the store.
  if (!done) throw new RunNotFollowedError(runId)
  const viewerUrl = backend.viewerUrl(runId)
  const data = 'data' in done.result ? done.result.data : undefined
  return {
    runId,
    success: done.result.success,
    text: done.result.text,
    reason: done.reason,
    ...(data === undefined ? {} : { data }),
    ...(done.result.outcome === undefined ? {} : { outcome: done.result.outcome }),
    steps: done.steps,
    costUsd: done.costUsd ?? null,
    ...(viewerUrl === undefined ? {} : { viewerUrl }),
    ...(replies.notes.length > 0 ? { notes: replies.notes } : {}),
  }
}

/** The run's events stopped before its `done`: the tool cannot answer how it ended. */
export class RunNotFollowedError extends Error {
  override name = 'RunNotFollowedError'
  constructor(runId: string) {
    super(`Run ${runId} could not be followed to its end; get_run shows how it ended.`)
  }
}
