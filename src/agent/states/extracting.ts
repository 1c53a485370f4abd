import { generateText, jsonSchema, Output } from 'ai'
import type { EventDraft } from '../../events/events.ts'
import { toUsage } from '../../events/usage.ts'
import { isAbortError } from '../../tool.ts'
import { describeError } from '../../util/describe-error.ts'
import { chargeUsage } from '../model-calls/usage-accounting.ts'
import type { AgentContext, TransitionResult } from '../run/run-context.ts'

/**
 * The end of a replay with an output schema: its steps are replayed, and the
 * data is read off the final page by exactly one model call (the recorded
 * data described the recorded page, not this one). Data that does not match
 * ends the run with `error`, as does the lack of a model to make the call.
 */
export async function extracting(ctx: AgentContext): Promise<TransitionResult> {
  const output = ctx.output
  const replay = ctx.replay
  if (!output || !replay) throw new Error('The extracting state needs a replay with an output schema.')
  const replayed = `Replayed the recording (${replay.stats.replayed} steps)`
  if (!replay.canHeal) {
    const text = `${replayed}, but its output schema needs one model call to read the data off the final page, and no model is configured.`
    return failed(text, [])
  }
  const effects: EventDraft[] = []
  const stats = { ...replay.stats, modelSteps: replay.stats.modelSteps + 1 }
  let response: Awaited<ReturnType<typeof readData>>
  try {
    response = await readData(ctx, await finalPage(ctx))
  } catch (error) {
    if (isAbortError(error) || ctx.signal.aborted) throw error
    return failed(
      `${replayed}, but reading the data off the final page failed: ${describeError(error)}`,
      [],
      stats,
    )
  }
  const charged = chargeUsage(ctx, { source: 'step', usage: toUsage(response.usage) })
  effects.push(charged.event)
  const update = { run: charged.totals, replay: { stats } }
  const checked = output.check(response.output)
  if (!checked.ok) {
    const text = `${replayed}, but the data read off the final page does not match the output schema: ${checked.problems}`
    return { ...failed(text, effects, stats), update }
  }
  const text = `${replayed} and read the data off the final page.`
  return {
    next: { type: 'done', reason: 'model_stop', result: { success: true, text, data: checked.data } },
    effects,
    update,
  }
}

function failed(
  text: string,
  effects: EventDraft[],
  stats?: NonNullable<AgentContext['replay']>['stats'],
): TransitionResult {
  return {
    next: { type: 'done', reason: 'error', result: { success: false, text } },
    effects: [...effects, { type: 'error', message: text, retryable: false }],
    ...(stats ? { update: { replay: { stats } } } : {}),
  }
}

/** The final page as the model reads it: its page view, scrubbed of secret values. */
async function finalPage(ctx: AgentContext): Promise<string> {
  if (!ctx.browser) return '(This run has no browser.)'
  const observation = await ctx.browser.observe(ctx.signal)
  return ctx.secrets.scrub(observation.pageView)
}

function readData(ctx: AgentContext, page: string) {
  const schema = ctx.output?.jsonSchema ?? {}
  return generateText({
    model: ctx.model,
    instructions:
      'You read data off a web page for a program. Answer with JSON that matches the schema, taken from the page only.',
    prompt: `Task: ${ctx.task}\n\nThe task's steps are done. The final page:\n\n${page}`,
    output: Output.object({ schema: jsonSchema(schema) }),
    // Exactly one call: a replay's promise is that the model is asked once.
    maxRetries: 0,
    abortSignal: ctx.signal,
  })
}
