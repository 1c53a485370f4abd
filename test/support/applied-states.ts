import { applyUpdate } from '../../src/agent/run/apply-update.ts'
import type { AgentContext, TransitionResult } from '../../src/agent/run/run-context.ts'
import { confirming as confirmingHandler } from '../../src/agent/states/confirming.ts'
import { dispatching as dispatchingHandler } from '../../src/agent/states/dispatching.ts'
import { executing as executingHandler } from '../../src/agent/states/executing.ts'
import { streaming as streamingHandler } from '../../src/agent/states/streaming.ts'
import { thinking as thinkingHandler } from '../../src/agent/states/thinking.ts'

/**
 * A state handler on its own, followed by what the loop does with its result:
 * its update applied to the hand-built context, so a test reads the run's
 * bookkeeping after a transition as the next transition would.
 */
function applied<Args extends unknown[]>(
  handler: (...args: [...Args, AgentContext]) => Promise<TransitionResult> | TransitionResult,
): (...args: [...Args, AgentContext]) => Promise<TransitionResult> {
  return async (...args) => {
    const ctx = args.at(-1) as AgentContext
    const result = await handler(...args)
    applyUpdate(ctx, result.update)
    return result
  }
}

export const thinking = applied(thinkingHandler)
export const streaming = applied(streamingHandler)
export const executing = applied(executingHandler)
export const confirming = applied(confirmingHandler)
export const dispatching = applied(dispatchingHandler)
