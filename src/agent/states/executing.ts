import { type AnyTool, isAbortError, type ToolResult } from '../../tool.ts'
import { describeError } from '../../util/describe-error.ts'
import { shownInput } from '../calls/call-masking.ts'
import { callStarted, callSucceeded } from '../calls/call-observers.ts'
import { decide } from '../calls/call-policy.ts'
import { ToolEventQueue } from '../calls/tool-event-queue.ts'
import type { AgentContext, TransitionResult } from '../run/run-context.ts'
import type { Effect, ExecutingState, PendingCall, RunningCall } from '../run/run-state.ts'
import { finishCall } from '../steps/finish-call.ts'
import { isDispatchTool } from '../tools/dispatch-agent.ts'
import { isHandOverTool } from '../tools/hand-over.ts'

/**
 * Takes the next call from the queue: resolves its tool and applies policy
 * (phase start), runs the checked call (phase ready), and yields what it
 * emits until its result arrives (phase awaiting-result).
 */
export async function executing(state: ExecutingState, ctx: AgentContext): Promise<TransitionResult> {
  switch (state.phase) {
    case 'start': {
      const started = startCall(state.queue, ctx)
      await callStarted(started, ctx)
      return started
    }
    case 'ready': {
      // Sub-agents are no tool run: the dispatching state runs them and forwards what they emit.
      if (isDispatchTool(state.tool)) {
        const { call, queue } = state
        return { next: { type: 'dispatching', phase: 'start', call, queue }, effects: [] }
      }
      // Nor is hand_over: the handing_over state waits for the person.
      if (isHandOverTool(state.tool)) {
        const { call, queue } = state
        const cause = { by: 'model' as const, call, queue }
        return { next: { type: 'handing_over', phase: 'start', cause }, effects: [] }
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
      ...(call.dropTarget ? { dropTarget: call.dropTarget } : {}),
      ...(call.offset ? { offset: call.offset } : {}),
      ...(call.dropOffset ? { dropOffset: call.dropOffset } : {}),
    },
  ]
  if (!tool) {
    const result = { ok: false, text: `There is no action named ${call.tool}.` }
    return finishCall({ ctx, call, queue: rest, result, effects })
  }
  const verdict = decide(ctx.policy, tool, call.input)
  if (verdict.decision === 'deny') {
    const result = { ok: false, text: `Not run: ${verdict.reason}` }
    return finishCall({ ctx, call, queue: rest, result, effects })
  }
  if (verdict.decision === 'confirm') {
    const confirm = ctx.confirm
    if (!confirm) {
      effects.push({ type: 'confirmation_resolved', callId: call.callId, approved: false, by: 'policy' })
      const text = `Not run: ${verdict.reason} No one can confirm actions in this run; find another way or finish.`
      return finishCall({ ctx, call, queue: rest, result: { ok: false, text }, effects })
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
  const outcome = settled.result.ok ? await callSucceeded(call, ctx) : undefined
  return finishCall({
    ctx,
    call,
    queue,
    result: settled.result,
    durationMs,
    effects,
    ...(outcome ? { outcome } : {}),
  })
}
