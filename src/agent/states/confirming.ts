import { abortable, isAbortError } from '../../tool.ts'
import { shownInput } from '../calls/call-masking.ts'
import type { AgentContext, TransitionResult } from '../run/run-context.ts'
import type { ConfirmingState } from '../run/run-state.ts'
import { finishCall } from '../steps/finish-call.ts'

type Answer = { approved: boolean; by: 'user' | 'timeout' }

/**
 * Waits for the caller's answer, the run's signal, or the timeout (= deny).
 * A denial is a result the model reads; the run goes on.
 */
export async function confirming(state: ConfirmingState, ctx: AgentContext): Promise<TransitionResult> {
  const { call, tool } = state
  // The callback's own signal also ends when the wait does, so a pending prompt or
  // HTTP confirmation is released on timeout, not only on abort.
  const waitController = new AbortController()
  const onRunAbort = () => waitController.abort()
  ctx.signal.addEventListener('abort', onRunAbort, { once: true })
  let timer: ReturnType<typeof setTimeout> | undefined
  let answer: Answer
  try {
    const timeout = new Promise<Answer>((resolve) => {
      timer = setTimeout(
        () => resolve({ approved: false, by: 'timeout' }),
        Math.max(0, state.expiresAt - ctx.now()),
      )
    })
    const request = {
      runId: ctx.runId,
      callId: call.callId,
      tool: call.tool,
      input: shownInput(call, tool),
      reason: state.reason,
      expiresAt: new Date(state.expiresAt),
    }
    const byUser = state
      .confirm(request, waitController.signal)
      .then((approved): Answer => ({ approved: approved === true, by: 'user' }))
    answer = await abortable(Promise.race([byUser, timeout]), ctx.signal)
  } catch (error) {
    if (isAbortError(error) || ctx.signal.aborted) throw error
    ctx.log.warn({ runId: ctx.runId, err: error }, 'confirmation callback failed; treating as denied')
    answer = { approved: false, by: 'user' }
  } finally {
    clearTimeout(timer)
    ctx.signal.removeEventListener('abort', onRunAbort)
    waitController.abort()
  }

  const effects: TransitionResult['effects'] = [
    { type: 'confirmation_resolved', callId: call.callId, approved: answer.approved, by: answer.by },
  ]
  if (answer.approved)
    return { next: { type: 'executing', phase: 'ready', call, tool, queue: state.queue }, effects }
  const text =
    answer.by === 'timeout'
      ? 'Not run: no one confirmed this action in time. Find another way or finish.'
      : 'Not run: the user denied this action. Find another way or finish.'
  // A denied call cancels the rest of the queue: it was planned on the assumption it would run.
  return finishCall({ ctx, call, queue: [], result: { ok: false, text }, effects })
}
