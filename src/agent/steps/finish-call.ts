import type { CallOutcome } from '../../recording/schema.ts'
import { maskFields } from '../../redact.ts'
import type { ToolResult } from '../../tool.ts'
import { sensitiveFields } from '../calls/call-masking.ts'
import { shouldCompact } from '../prompt/compaction-threshold.ts'
import { withCurrentStep } from '../run/apply-update.ts'
import type { AgentContext, RunRecord, TransitionResult } from '../run/run-context.ts'
import type { Effect, PendingCall } from '../run/run-state.ts'
import { checkFinalData } from './final-data.ts'

export interface FinishedCall {
  ctx: AgentContext
  call: PendingCall
  result: ToolResult
  /** The calls still queued after this one (a denied call drops them: they assumed it would run). */
  queue: PendingCall[]
  /** 0 for a call that never ran (refused, denied). */
  durationMs?: number
  /** What the transition emitted before the result (the call's own events); the result is added. */
  effects?: Effect[]
  /** What the call left on the page, for the recording. */
  outcome?: CallOutcome
}

/**
 * Ends a call, however it ended (ran, refused, denied, a dispatch's
 * children reported): records its action and result in the step, counts
 * failures and waits, emits `tool_call_result`, and routes to what comes
 * next: done, the next queued call, the replay, compaction or a new step.
 * A `done` whose data does not match the output schema does not end the run
 * (until its attempts are spent): the model reads why.
 */
export function finishCall(finished: FinishedCall): TransitionResult {
  const { ctx, call, queue, durationMs = 0, outcome } = finished
  const checked = checkFinalData(finished.result, ctx)
  const { result } = checked
  const effects = finished.effects ?? []
  // What the history (and so every later prompt and summary) keeps: no secret value, no password.
  const text = ctx.secrets.scrub(result.text)
  const masked = [...sensitiveFields(call, ctx.tools.get(call.tool)), ...(result.maskInput ?? [])]
  const input = maskFields(call.input, masked)
  const output = ctx.run.history.at(-1)?.output
  const update: Partial<RunRecord> = {
    history: withCurrentStep(ctx.run.history, {
      action: { tool: call.tool, input },
      ...(output && masked.length > 0 ? { output: { ...output, action: { tool: call.tool, input } } } : {}),
      result: { ok: result.ok, text },
    }),
    ...(result.ok ? {} : { failedActions: ctx.run.failedActions + 1 }),
    ...(result.waitedMs ? { waitedMs: ctx.run.waitedMs + result.waitedMs } : {}),
    ...(checked.verdict === 'accepted' ? {} : { rejectedData: checked.rejectedData }),
  }
  effects.push({
    type: 'tool_call_result',
    callId: call.callId,
    ok: result.ok,
    result: text,
    durationMs,
    source: call.source ?? 'model',
    ...(outcome ? { outcome } : {}),
    ...typedSecrets(result, ctx.tools.get(call.tool)?.secretInput),
  })
  const routed = (next: TransitionResult['next']): TransitionResult => ({
    next,
    effects,
    update: { run: update },
  })

  if (checked.verdict === 'failed') {
    effects.push({ type: 'error', message: checked.message, retryable: false })
    return routed({ type: 'done', reason: 'error', result: { success: false, text: checked.message } })
  }
  if (result.final) return routed({ type: 'done', reason: 'model_stop', result: result.final })
  if (queue.length > 0) return routed({ type: 'executing', phase: 'start', queue })
  // A replay checks the step and takes the next one (or, while healing, sees whether it can resume).
  if (ctx.replay) return routed({ type: 'replaying', phase: 'check' })
  if (shouldCompact(ctx, { ...ctx.run, ...update })) return routed({ type: 'compacting' })
  return routed({ type: 'thinking' })
}

/** Where the call typed the run's secrets: what lets a recording's export read back those, there, and no other. */
function typedSecrets(result: ToolResult, field: string | undefined): { secrets?: Record<string, string[]> } {
  const names = result.ok ? (result.typedSecrets ?? []) : []
  return field !== undefined && names.length > 0 ? { secrets: { [field]: names } } : {}
}
