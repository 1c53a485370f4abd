import type { CallOutcome } from '../../recording/schema.ts'
import { maskFields, redactInput } from '../../redact.ts'
import { type AnyTool, isAbortError, type ToolResult } from '../../tool.ts'
import { describeError } from '../../util/describe-error.ts'
import { decide } from '../call-policy.ts'
import { outcomeOf, recordTarget } from '../call-record.ts'
import type { AgentContext, TransitionResult } from '../run-context.ts'
import type { Effect, ExecutingState, PendingCall, RunningCall } from '../run-state.ts'
import { markTarget } from '../step-screenshot.ts'
import { ToolEventQueue } from '../tool-event-queue.ts'
import { isDispatchTool } from '../tools/dispatch-agent.ts'
import { shouldCompact } from './compacting.ts'

/**
 * Takes the next call from the queue: resolves its tool and applies policy
 * (phase start), runs the checked call (phase ready), and yields what it
 * emits until its result arrives (phase awaiting-result).
 */
export async function executing(state: ExecutingState, ctx: AgentContext): Promise<TransitionResult> {
  switch (state.phase) {
    case 'start': {
      const started = startCall(state.queue, ctx)
      await markTarget(started.effects, ctx)
      await recordTarget(started, ctx)
      return started
    }
    case 'ready': {
      // Sub-agents are no tool run: the dispatching state runs them and forwards what they emit.
      if (isDispatchTool(state.tool)) {
        const { call, queue } = state
        return { next: { type: 'dispatching', phase: 'start', call, queue }, effects: [] }
      }
      const running = runCall(state.call, state.tool, ctx)
      return awaitCall(state.call, state.queue, running, ctx)
    }
    case 'awaiting-result':
      return awaitCall(state.call, state.queue, state.running, ctx)
    default: {
      const unknownPhase: never = state
      throw new Error(`Unknown executing phase ${JSON.stringify(unknownPhase)}`)
    }
  }
}

/** A call's input as events show it: secret keys redacted, fields the tool says are sensitive masked. */
export function shownInput(call: PendingCall, tool: AnyTool | undefined): unknown {
  // A field that holds only secret placeholders shows nothing secret: kept, so a recording can replay it.
  const input = call.input as Record<string, unknown> | undefined
  const masked = sensitiveFields(call, tool).filter((field) => !onlyPlaceholders(input?.[field]))
  return redactInput(maskFields(call.input, masked))
}

function onlyPlaceholders(value: unknown): boolean {
  return typeof value === 'string' && /^(?:\s*<secret>\s*[\w.-]+\s*<\/secret>\s*)+$/.test(value)
}

function sensitiveFields(call: PendingCall, tool: AnyTool | undefined): string[] {
  try {
    return tool?.maskInput?.(call.input) ?? []
  } catch {
    return []
  }
}

function startCall(queue: PendingCall[], ctx: AgentContext): TransitionResult {
  const [call, ...rest] = queue
  if (!call) return { next: { type: 'thinking' }, effects: [] }
  const tool = ctx.tools.get(call.tool)
  const effects: Effect[] = [
    {
      type: 'tool_call_start',
      callId: call.callId,
      tool: call.tool,
      input: shownInput(call, tool),
      source: call.source ?? 'model',
      ...(call.target ? { target: call.target } : {}),
    },
  ]
  if (!tool) {
    return finishCall(
      call,
      rest,
      { ok: false, text: `There is no action named ${call.tool}.` },
      0,
      ctx,
      effects,
    )
  }
  const verdict = decide(ctx.policy, tool, call.input)
  if (verdict.decision === 'deny') {
    return finishCall(call, rest, { ok: false, text: `Not run: ${verdict.reason}` }, 0, ctx, effects)
  }
  if (verdict.decision === 'confirm') {
    const confirm = ctx.confirm
    if (!confirm) {
      effects.push({ type: 'confirmation_resolved', callId: call.callId, approved: false, by: 'policy' })
      const text = `Not run: ${verdict.reason} No one can confirm actions in this run; find another way or finish.`
      return finishCall(call, rest, { ok: false, text }, 0, ctx, effects)
    }
    const expiresAt = ctx.now() + ctx.confirmationTimeoutMs
    effects.push({
      type: 'confirmation_required',
      callId: call.callId,
      tool: call.tool,
      input: shownInput(call, tool),
      reason: verdict.reason,
      expiresAt: new Date(expiresAt).toISOString(),
    })
    return {
      next: { type: 'confirming', call, tool, queue: rest, reason: verdict.reason, expiresAt, confirm },
      effects,
    }
  }
  return { next: { type: 'executing', phase: 'ready', call, tool, queue: rest }, effects }
}

function runCall(call: PendingCall, tool: AnyTool, ctx: AgentContext): RunningCall {
  const events = new ToolEventQueue()
  const outcome = (async (): Promise<ToolResult> => {
    try {
      return await tool.execute(call.input, {
        signal: ctx.signal,
        runId: ctx.runId,
        step: ctx.run.step,
        callId: call.callId,
        emit: (event) => events.push(event),
        ...(ctx.secrets.isEmpty ? {} : { secrets: ctx.secrets }),
      })
    } catch (error) {
      if (isAbortError(error) || ctx.signal.aborted) throw error
      return { ok: false, text: `${call.tool} failed: ${describeError(error)}` }
    }
  })()
  ctx.run.inFlight = { label: `The ${call.tool} action`, settled: outcome.catch(() => {}) }
  return { startedAt: ctx.now(), outcome, events }
}

async function awaitCall(
  call: PendingCall,
  queue: PendingCall[],
  running: RunningCall,
  ctx: AgentContext,
): Promise<TransitionResult> {
  const settled = await Promise.race([
    running.outcome.then((result) => ({ result })),
    running.events.waitForEvent().then(() => undefined),
  ])
  const effects: Effect[] = running.events.take()
  if (!settled)
    return { next: { type: 'executing', phase: 'awaiting-result', call, queue, running }, effects }
  ctx.run.inFlight = undefined
  const durationMs = ctx.now() - running.startedAt
  const outcome = settled.result.ok ? await outcomeOf(call, ctx) : undefined
  return finishCall(call, queue, settled.result, durationMs, ctx, effects, outcome)
}

/** Records the result in the step, accounts for failures and waits, and routes to what comes next. */
export function finishCall(
  call: PendingCall,
  queue: PendingCall[],
  result: ToolResult,
  durationMs: number,
  ctx: AgentContext,
  effects: Effect[],
  outcome?: CallOutcome,
): TransitionResult {
  const run = ctx.run
  // What the history (and so every later prompt and summary) keeps: no secret value, no password.
  const text = ctx.secrets.scrub(result.text)
  const masked = [...sensitiveFields(call, ctx.tools.get(call.tool)), ...(result.maskInput ?? [])]
  const record = run.history.at(-1)
  if (record) {
    const input = maskFields(call.input, masked)
    record.action = { tool: call.tool, input }
    if (record.output && masked.length > 0)
      record.output = { ...record.output, action: { tool: call.tool, input } }
    record.result = { ok: result.ok, text }
  }
  if (!result.ok) run.failedActions++
  if (result.waitedMs) run.waitedMs += result.waitedMs
  effects.push({
    type: 'tool_call_result',
    callId: call.callId,
    ok: result.ok,
    result: text,
    durationMs,
    source: call.source ?? 'model',
    ...(outcome ? { outcome } : {}),
  })

  if (result.final) return { next: { type: 'done', reason: 'model_stop', result: result.final }, effects }
  if (queue.length > 0) return { next: { type: 'executing', phase: 'start', queue }, effects }
  // A replay checks the step and takes the next one (or, while healing, sees whether it can resume).
  if (ctx.replay) return { next: { type: 'replaying' }, effects }
  if (shouldCompact(ctx)) return { next: { type: 'compacting' }, effects }
  return { next: { type: 'thinking' }, effects }
}
