import { generateText, Output } from 'ai'
import { z } from 'zod'
import type { EventDraft } from '../../events/events.ts'
import { toUsage } from '../../events/usage.ts'
import { isAbortError } from '../../tool.ts'
import { describeError } from '../../util/describe-error.ts'
import { buildStepPrompt, estimateTokens, formatStep } from '../prompt/step-prompt.ts'
import type { AgentContext, CompactedSummary, TransitionResult } from '../run-context.ts'
import { recordUsage } from '../usage-accounting.ts'

const SummarySchema = z.object({
  task: z.string().describe('The task, restated in one or two sentences.'),
  progress: z.string().describe('What has been achieved so far.'),
  keyData: z
    .string()
    .describe('Facts, values, URLs and names found that later steps need. Verbatim where exact.'),
  failedAttempts: z.string().describe('What was tried and did not work, so it is not repeated.'),
  nextSteps: z.string().describe('What remains to do.'),
})

/** The estimated size of the next prompt, as thinking would assemble it now. */
export function estimatePromptTokens(ctx: AgentContext): number {
  const user = buildStepPrompt({
    task: ctx.task,
    step: ctx.run.step + 1,
    maxTurns: ctx.maxTurns,
    run: ctx.run,
    observation: ctx.run.lastObservation,
  })
  return estimateTokens(ctx.systemPrompt) + estimateTokens(user)
}

export function shouldCompact(ctx: AgentContext): boolean {
  if (ctx.run.compactionFailures >= ctx.compaction.maxFailures) return false
  if (ctx.run.history.length <= ctx.compaction.keepRecentSteps) return false
  return estimatePromptTokens(ctx) > ctx.compaction.thresholdTokens
}

/**
 * Summarizes older steps into a structured summary so a long task fits its
 * context; recent steps stay verbatim. Repeated failures trip a breaker.
 */
export async function compacting(ctx: AgentContext): Promise<TransitionResult> {
  const tokensBefore = estimatePromptTokens(ctx)
  const effects: EventDraft[] = [
    { type: 'compaction_start', estimatedTokens: tokensBefore, threshold: ctx.compaction.thresholdTokens },
  ]
  const keep = ctx.compaction.keepRecentSteps
  const older = ctx.run.history.slice(0, ctx.run.history.length - keep)
  try {
    const summary = await summarize(ctx, older.map(formatStep).join('\n'), effects)
    ctx.run.summary = { ...summary, throughStep: older.at(-1)?.step ?? ctx.run.summary?.throughStep ?? 0 }
    ctx.run.history = ctx.run.history.slice(-keep)
    ctx.run.compactionFailures = 0
    effects.push({ type: 'compaction_end', tokensBefore, tokensAfter: estimatePromptTokens(ctx), ok: true })
  } catch (error) {
    if (isAbortError(error) || ctx.signal.aborted) throw error
    ctx.run.compactionFailures++
    effects.push({ type: 'compaction_end', tokensBefore, tokensAfter: tokensBefore, ok: false })
    const breakerOpen = ctx.run.compactionFailures >= ctx.compaction.maxFailures
    effects.push({
      type: 'warning',
      code: breakerOpen ? 'compaction_disabled' : 'compaction_failed',
      message: breakerOpen
        ? `Compaction failed ${ctx.run.compactionFailures} times in a row; it is off for the rest of this run. Last error: ${describeError(error)}`
        : `Compaction failed: ${describeError(error)}`,
    })
  }
  return { next: { type: 'thinking' }, effects }
}

async function summarize(
  ctx: AgentContext,
  olderSteps: string,
  effects: EventDraft[],
): Promise<Omit<CompactedSummary, 'throughStep'>> {
  const previous = ctx.run.summary
  const result = await generateText({
    model: ctx.compaction.model ?? ctx.model,
    instructions:
      'You compress the history of a browser agent so it can continue its task. Keep every fact later steps need; drop narration.',
    prompt: [
      `Task: ${ctx.task}`,
      previous
        ? `Earlier summary:\nProgress: ${previous.progress}\nKey data: ${previous.keyData}\nFailed attempts: ${previous.failedAttempts}\nNext steps: ${previous.nextSteps}`
        : '',
      `Steps to summarize:\n${olderSteps}`,
    ]
      .filter(Boolean)
      .join('\n\n'),
    output: Output.object({ schema: SummarySchema }),
    maxRetries: 1,
    abortSignal: ctx.signal,
  })
  effects.push(recordUsage(ctx, 'compaction', toUsage(result.usage)))
  return result.output
}
