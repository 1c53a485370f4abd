import { generateText, Output } from 'ai'
import { z } from 'zod'
import type { EventDraft } from '../../events/events.ts'
import { toUsage } from '../../events/usage.ts'
import { isAbortError } from '../../tool.ts'
import { describeError } from '../../util/describe-error.ts'
import { chargeUsage, type UsageCharge } from '../model-calls/usage-accounting.ts'
import { estimatePromptTokens } from '../prompt/compaction-threshold.ts'
import { formatStep } from '../prompt/step-prompt.ts'
import type { AgentContext, CompactedSummary, RunRecord, TransitionResult } from '../run/run-context.ts'

const SummarySchema = z.object({
  task: z.string().describe('The task, restated in one or two sentences.'),
  progress: z.string().describe('What has been achieved so far.'),
  keyData: z
    .string()
    .describe('Facts, values, URLs and names found that later steps need. Verbatim where exact.'),
  failedAttempts: z.string().describe('What was tried and did not work, so it is not repeated.'),
  nextSteps: z.string().describe('What remains to do.'),
})

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
  let update: Partial<RunRecord>
  try {
    const { summary, charged } = await summarize(ctx, older.map(formatStep).join('\n'))
    effects.push(charged.event)
    update = {
      ...charged.totals,
      summary: { ...summary, throughStep: older.at(-1)?.step ?? ctx.run.summary?.throughStep ?? 0 },
      history: ctx.run.history.slice(-keep),
      compactionFailures: 0,
    }
    const tokensAfter = estimatePromptTokens(ctx, { ...ctx.run, ...update })
    effects.push({ type: 'compaction_end', tokensBefore, tokensAfter, ok: true })
  } catch (error) {
    if (isAbortError(error) || ctx.signal.aborted) throw error
    const failures = ctx.run.compactionFailures + 1
    update = { compactionFailures: failures }
    effects.push({ type: 'compaction_end', tokensBefore, tokensAfter: tokensBefore, ok: false })
    const breakerOpen = failures >= ctx.compaction.maxFailures
    effects.push({
      type: 'warning',
      code: breakerOpen ? 'compaction_disabled' : 'compaction_failed',
      message: breakerOpen
        ? `Compaction failed ${failures} times in a row; it is off for the rest of this run. Last error: ${describeError(error)}`
        : `Compaction failed: ${describeError(error)}`,
    })
  }
  return { next: { type: 'thinking' }, effects, update: { run: update } }
}

async function summarize(
  ctx: AgentContext,
  olderSteps: string,
): Promise<{ summary: Omit<CompactedSummary, 'throughStep'>; charged: UsageCharge }> {
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
  const charged = chargeUsage(ctx, { source: 'compaction', usage: toUsage(result.usage) })
  return { summary: result.output, charged }
}
