import type { EventDraft } from '../../events/events.ts'
import { abortable } from '../../tool.ts'
import { describeDuration } from '../../util/text.ts'
import type { AgentContext, TransitionResult } from '../run/run-context.ts'
import type { HandingOverState, HandoverCause } from '../run/run-state.ts'
import { finishCall } from '../steps/finish-call.ts'
import { handOverInputSchema } from '../tools/hand-over.ts'

type Outcome = 'handed_back' | 'timeout'

/**
 * A person has the run's browser: the model's `hand_over` asked for one, or a
 * person took over at a step boundary. Phase start tells everyone
 * (takeover_started); the next phase waits for the hand-back, the desk's
 * timeout or the run's abort (which ends the run like in any state). Then the
 * run observes the page afresh: the model's call gets what happened as its
 * result; after a person's own takeover, the next prompt says so.
 */
export async function handingOver(state: HandingOverState, ctx: AgentContext): Promise<TransitionResult> {
  const desk = ctx.handover
  if (state.phase === 'start') {
    const { cause } = state
    let reason: string | undefined
    if (cause.by === 'model') {
      const parsed = handOverInputSchema.safeParse(cause.call.input)
      const refused = !desk
        ? 'Not run: no person can take over in this run. Find another way or finish with success: false.'
        : !parsed.success
          ? `Not run: hand_over needs a reason saying what the person must do (${parsed.error.issues[0]?.message ?? 'invalid input'}).`
          : ctx.run.modelHandovers >= desk.maxHandovers
            ? `Not run: no hand-overs are left. This run may ask for a person ${times(desk.maxHandovers)} and has; no person will come. Find another way, or finish with success: false.`
            : undefined
      if (refused)
        return finishCall({ ctx, call: cause.call, queue: cause.queue, result: { ok: false, text: refused } })
      reason = parsed.data?.reason
    }
    if (!desk) return { next: cause.by === 'user' ? cause.resume : { type: 'thinking' }, effects: [] }
    const takeover = desk.begin()
    return {
      next: {
        type: 'handing_over',
        phase: 'awaiting-hand-back',
        cause,
        ...(reason === undefined ? {} : { reason }),
        takeover,
        startedAt: ctx.now(),
      },
      effects: [{ type: 'takeover_started', by: cause.by, ...(reason === undefined ? {} : { reason }) }],
      ...(cause.by === 'model' ? { update: { run: { modelHandovers: ctx.run.modelHandovers + 1 } } } : {}),
    }
  }
  const timeoutMs = desk?.timeoutMs ?? 0
  const outcome = await waitForHandBack(state, ctx, timeoutMs)
  const durationMs = Math.max(0, ctx.now() - state.startedAt)
  const effects: EventDraft[] = [{ type: 'takeover_ended', durationMs }]
  return afterHandBack(state.cause, ctx, { outcome, durationMs, timeoutMs, effects, reason: state.reason })
}

async function waitForHandBack(
  state: Extract<HandingOverState, { phase: 'awaiting-hand-back' }>,
  ctx: AgentContext,
  timeoutMs: number,
): Promise<Outcome> {
  let timer: ReturnType<typeof setTimeout> | undefined
  try {
    const timeout = new Promise<Outcome>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), Math.max(0, state.startedAt + timeoutMs - ctx.now()))
    })
    const handedBack = state.takeover.handedBack.then((): Outcome => 'handed_back')
    return await abortable(Promise.race([handedBack, timeout]), ctx.signal)
  } finally {
    clearTimeout(timer)
    state.takeover.end()
  }
}

interface Ended {
  outcome: Outcome
  reason: string | undefined
  durationMs: number
  timeoutMs: number
  effects: EventDraft[]
}

function afterHandBack(cause: HandoverCause, ctx: AgentContext, ended: Ended): TransitionResult {
  const { outcome, durationMs, timeoutMs, effects, reason } = ended
  const held = describeDuration(durationMs)
  if (cause.by === 'model') {
    const result =
      outcome === 'handed_back'
        ? {
            ok: true,
            text: `A person took over (${reason}) and handed the browser back after ${held}. Check the page: it is as they left it. ${handoversLeft(ctx)}`,
          }
        : {
            ok: false,
            text: `Nobody came to take over within ${describeDuration(timeoutMs)}. Find another way, or finish with success: false. ${handoversLeft(ctx)}`,
          }
    // What was queued after hand_over assumed the person's work: it is dropped, and the model sees the page first.
    return finishCall({ ctx, call: cause.call, queue: [], result, effects })
  }
  const note =
    outcome === 'handed_back'
      ? `A person took over the browser after step ${ctx.run.step} and handed it back after ${held}. What they did is not in your history: the page below is as they left it (its URL is in the header).`
      : `A person took over the browser after step ${ctx.run.step} and did not hand it back within ${describeDuration(timeoutMs)}; you have the browser again. The page below is as they left it (its URL is in the header).`
  return { next: cause.resume, effects, update: { run: { notes: [...ctx.run.notes, note] } } }
}

/** What the model may still ask for, said after each of its hand-overs. */
function handoversLeft(ctx: AgentContext): string {
  const left = Math.max(0, (ctx.handover?.maxHandovers ?? 0) - ctx.run.modelHandovers)
  return left === 0
    ? 'That was the last hand-over this run may ask for.'
    : `You may ask for a person ${times(left)} more in this run.`
}

function times(count: number): string {
  return count === 1 ? 'once' : count === 2 ? 'twice' : `${count} times`
}
