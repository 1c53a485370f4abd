import type { RunResult } from '../../events/events.ts'
import type { AgentContext } from '../run-context.ts'
import type { AgentState, ReplayStepState, ThinkingState } from '../run-state.ts'

/**
 * Run-wide limits, checked between transitions: abort, token budget, turns;
 * and the one place a person's takeover stops the run, at a step boundary
 * (before a new step begins: the action in flight has finished).
 */
export function guard(next: AgentState, ctx: AgentContext): AgentState {
  if (next.type === 'done') return next
  if (ctx.signal.aborted) return { type: 'done', reason: 'user_abort', result: abortedResult(ctx, next) }
  if (ctx.maxSessionTokens !== undefined && ctx.run.usage.totalTokens >= ctx.maxSessionTokens) {
    const text = `Stopped: the run used ${ctx.run.usage.totalTokens} tokens, over its budget of ${ctx.maxSessionTokens}. ${lastMemory(ctx)}`
    return { type: 'done', reason: 'budget_exceeded', result: { success: false, text: text.trim() } }
  }
  if (startsStep(next) && ctx.run.step >= ctx.maxTurns) {
    const text = `Stopped after ${ctx.run.step} steps without finishing. ${lastMemory(ctx)}`
    return { type: 'done', reason: 'max_turns', result: { success: false, text: text.trim() } }
  }
  if (ctx.handover?.requested && startsStep(next))
    return { type: 'handing_over', phase: 'start', cause: { by: 'user', resume: next } }
  return next
}

/**
 * Only a new step counts against maxTurns, whoever takes it: the model's
 * (`thinking`) or the recording's (a replayed step). A retry (backoff)
 * continues the current step; a replay's check of the step it just replayed
 * is part of that step, so a recording of exactly maxTurns steps still ends.
 */
function startsStep(next: AgentState): next is ThinkingState | ReplayStepState {
  return next.type === 'thinking' || (next.type === 'replaying' && next.phase === 'step')
}

/** The result of a run aborted in `state`. */
export function abortedResult(ctx: AgentContext, state: AgentState): RunResult {
  if (state.type === 'opening') return { success: false, text: 'Aborted before the browser started.' }
  return { success: false, text: `Aborted at step ${ctx.run.step}. ${lastMemory(ctx)}`.trim() }
}

function lastMemory(ctx: AgentContext): string {
  const memory = ctx.run.history.findLast((record) => record.output?.memory)?.output?.memory
  return memory ? `Last memory: ${memory}` : ''
}
