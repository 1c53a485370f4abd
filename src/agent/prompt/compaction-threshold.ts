import type { AgentContext, RunRecord } from '../run/run-context.ts'
import { buildStepPrompt, estimateTokens } from './step-prompt.ts'

/**
 * The estimated size of the next prompt, as thinking would assemble it from
 * `run` (the run as it is, or as a transition's update is about to make it).
 */
export function estimatePromptTokens(ctx: AgentContext, run: RunRecord = ctx.run): number {
  const user = buildStepPrompt({
    task: ctx.task,
    step: run.step + 1,
    maxTurns: ctx.maxTurns,
    run,
    observation: run.lastObservation,
  })
  return estimateTokens(ctx.systemPrompt) + estimateTokens(user)
}

/** Whether older steps should be summarized before the next step (see the compacting state). */
export function shouldCompact(ctx: AgentContext, run: RunRecord = ctx.run): boolean {
  if (run.compactionFailures >= ctx.compaction.maxFailures) return false
  if (run.history.length <= ctx.compaction.keepRecentSteps) return false
  return estimatePromptTokens(ctx, run) > ctx.compaction.thresholdTokens
}
