import { OutputAccumulator } from '../output/output.ts'
import type { AgentContext } from '../run/run-context.ts'
import type { ModelPrompt, StreamingState } from '../run/run-state.ts'

/** Starts the model call for a prompt: the streaming state that consumes its response (a new step's, or a retry's). */
export function startStreaming(options: {
  ctx: AgentContext
  prompt: ModelPrompt
  /** 1 for the step's first try. */
  attempt: number
}): StreamingState {
  const { ctx, prompt, attempt } = options
  const stream = ctx.startStream(prompt, ctx.signal)
  return { type: 'streaming', stream, output: new OutputAccumulator(), attempt, prompt }
}
