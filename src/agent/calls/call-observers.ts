import type { CallOutcome } from '../../recording/schema.ts'
import type { AgentContext, TransitionResult } from '../run/run-context.ts'
import type { PendingCall } from '../run/run-state.ts'
import { markTarget } from '../steps/step-screenshot.ts'
import { outcomeOf, recordTarget } from './call-record.ts'
import { nameTraceStep } from './trace-step.ts'

/**
 * What watches a call without deciding it: the recording's probes (the
 * element a call acts on, described durably before it runs; what it left on
 * the page after), the step picture's mark of its element and the trace's
 * name for the step. The executing
 * state runs calls and asks these at two points; a new probe is an entry
 * here, and the state does not change.
 */
export interface CallObserver {
  /** The call was started (it runs next, or waits for a confirmation): may add to its tool_call_start. */
  started?(started: TransitionResult, ctx: AgentContext): Promise<void>
  /** The call succeeded: what it left on the page, for its tool_call_result. */
  succeeded?(call: PendingCall, ctx: AgentContext): Promise<CallOutcome | undefined>
}

export const callObservers: readonly CallObserver[] = [
  { started: (started, ctx) => markTarget(started.effects, ctx) },
  { started: recordTarget, succeeded: outcomeOf },
  { started: nameTraceStep },
]

/** Every observer's look at a started call, at once: each is a question to the page on the step's critical path. */
export async function callStarted(started: TransitionResult, ctx: AgentContext): Promise<void> {
  await Promise.all(callObservers.map((observer) => observer.started?.(started, ctx)))
}

/** What a succeeded call left on the page: the first observer's answer (the recording's). */
export async function callSucceeded(call: PendingCall, ctx: AgentContext): Promise<CallOutcome | undefined> {
  for (const observer of callObservers) {
    const outcome = await observer.succeeded?.(call, ctx)
    if (outcome) return outcome
  }
  return undefined
}
