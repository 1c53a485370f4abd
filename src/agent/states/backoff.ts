import { sleep } from '../../tool.ts'
import type { AgentContext, TransitionResult } from '../run/run-context.ts'
import type { BackoffState } from '../run/run-state.ts'
import { startStreaming } from '../steps/start-streaming.ts'

/**
 * Waits out the delay before retrying a failed model call, then sends the
 * same prompt again in the same step. An abort ends the wait at once.
 */
export async function backoff(state: BackoffState, ctx: AgentContext): Promise<TransitionResult> {
  await sleep(state.delayMs, ctx.signal)
  return { next: startStreaming({ ctx, prompt: state.prompt, attempt: state.attempt }), effects: [] }
}
