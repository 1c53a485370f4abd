import type { AgentEvent } from '../events/events.ts'
import type { RecordedOwner } from './owner.ts'
import type { MarkInterruptedOptions, RunOutcome } from './run-store.ts'

export const interruptedText =
  'The run was interrupted: the server (or process) running it stopped before the run ended.'

/** The outcome and final event recorded for a run whose process died mid-run. */
export function interruptedEnding(
  runId: string,
  lastSeq: number,
  steps: number,
  createdAt: string,
  at: Date,
): { outcome: RunOutcome; done: AgentEvent } {
  const usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 }
  const result = { success: false, text: interruptedText }
  const finishedAt = at.toISOString()
  return {
    // What the run spent before it died is not known: its cost is unknown, not zero.
    outcome: { reason: 'error', result, usage, costUsd: null, steps, finishedAt },
    done: {
      type: 'done',
      runId,
      seq: lastSeq + 1,
      at: finishedAt,
      reason: 'error',
      result,
      usage,
      costUsd: null,
      steps,
      durationMs: Math.max(0, at.getTime() - Date.parse(createdAt)),
    },
  }
}

/** The outcome and only event of a queued run aborted before any server claimed it. */
export function withdrawnEnding(runId: string, createdAt: string, at: Date): Ending {
  return queuedEnding(runId, createdAt, at, 'user_abort', 'The run was aborted while it waited in the queue.')
}

/** What a run that waited past its queue timeout ends with. */
export function queueTimeoutText(timeoutMs: number): string {
  return `The run waited too long in the queue: no server had a free slot for it within its queue timeout (${timeoutMs} ms). Retry later, or give it a longer queueTimeoutMs.`
}

/** The outcome and only event of a queued run that waited past its queue timeout. */
export function queueTimeoutEnding(runId: string, createdAt: string, at: Date, timeoutMs: number): Ending {
  return queuedEnding(runId, createdAt, at, 'error', queueTimeoutText(timeoutMs))
}

/** A run that ends before any server ran it: its only event is its `done`. */
function queuedEnding(
  runId: string,
  createdAt: string,
  at: Date,
  reason: 'user_abort' | 'error',
  text: string,
): Ending {
  const usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 }
  const result = { success: false, text }
  const finishedAt = at.toISOString()
  return {
    outcome: { reason, result, usage, steps: 0, finishedAt },
    done: {
      type: 'done',
      runId,
      seq: 0,
      at: finishedAt,
      reason,
      result,
      usage,
      steps: 0,
      durationMs: Math.max(0, at.getTime() - Date.parse(createdAt)),
    },
  }
}

/** Steps a run reached, from its events. */
export function stepsOf(events: Iterable<AgentEvent>): number {
  let steps = 0
  for (const event of events) if (event.type === 'step_started') steps = Math.max(steps, event.step)
  return steps
}

/** A run a store holds as running, with its owner as recorded. */
export interface RunningRun {
  id: string
  owner: RecordedOwner
}

/** What a store knows of a run, for the `done` that ends it. */
export interface RunTail {
  /** -1 when it has no event. */
  lastSeq: number
  steps: number
  createdAt: string
}

export type Ending = { outcome: RunOutcome; done: AgentEvent }

/**
 * The sweep every store runs for markInterruptedRuns: each running run whose
 * owner is gone is ended by `end`, which writes its `done` and its outcome
 * together, and answers false when the run turned out not to be its to end
 * (another server is ending it, or its owner beat again). Returns the ids ended.
 */
export async function endInterruptedRuns<Run extends RunningRun>(
  options: MarkInterruptedOptions,
  running: readonly Run[],
  end: (run: Run, ending: (tail: RunTail) => Ending) => Promise<boolean>,
): Promise<string[]> {
  const marked: string[] = []
  for (const run of running) {
    if (!options.isOwnerGone(run.owner)) continue
    const ending = (tail: RunTail) =>
      interruptedEnding(run.id, tail.lastSeq, tail.steps, tail.createdAt, options.at)
    if (await end(run, ending)) marked.push(run.id)
  }
  return marked
}
