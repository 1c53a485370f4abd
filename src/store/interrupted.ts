import type { AgentEvent } from '../events/events.ts'
import type { RunOutcome } from './types.ts'

export const interruptedText = 'The run was interrupted: the process running it stopped before the run ended.'

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

/** Steps a run reached, from its events. */
export function stepsOf(events: Iterable<AgentEvent>): number {
  let steps = 0
  for (const event of events) if (event.type === 'step_started') steps = Math.max(steps, event.step)
  return steps
}
