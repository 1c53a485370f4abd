import type { EventDraft } from '../../events/events.ts'
import { classifyModelFailure } from '../../model/failure.ts'
import { providerLabel } from '../../model/retry-delay.ts'
import { AbortError } from '../../tool.ts'
import { contextWarning } from '../model-calls/context-check.ts'
import { finishOutcomeTransition } from '../model-calls/finish-outcome.ts'
import { retryDelayMs, waitOverCap } from '../model-calls/retry.ts'
import { chargeUsage } from '../model-calls/usage-accounting.ts'
import { visionRefusal } from '../model-calls/vision-refusal.ts'
import { parseAgentOutput } from '../output/output.ts'
import { withCurrentStep } from '../run/apply-update.ts'
import type { AgentContext, TransitionResult } from '../run/run-context.ts'
import type { ModelStreamPart, StreamingState } from '../run/run-state.ts'

/**
 * Consumes the model stream one part per transition, so each part's deltas
 * reach the caller as soon as the model writes them.
 */
export async function streaming(state: StreamingState, ctx: AgentContext): Promise<TransitionResult> {
  let item: IteratorResult<ModelStreamPart>
  try {
    item = await state.stream.next()
  } catch (error) {
    return modelFailed(state, ctx, error)
  }
  if (item.done) return finishResponse(state, ctx)

  const part = item.value
  switch (part.type) {
    case 'text':
      return { next: state, effects: state.output.addText(part.text) }
    case 'tool-input':
      return { next: state, effects: state.output.addToolInput(part.delta) }
    case 'tool-call':
      state.output.setToolCall({ toolName: part.toolName, input: part.input, rawInput: part.rawInput })
      return { next: state, effects: [] }
    case 'finish': {
      const charged = chargeUsage(ctx, { source: 'step', usage: part.usage })
      const history = withCurrentStep(ctx.run.history, { usage: part.usage })
      const truncated = contextWarning(ctx, state.prompt, part.usage)
      const run = { ...charged.totals, history, ...(truncated ? { contextWarned: true } : {}) }
      return {
        next: state,
        effects: truncated ? [charged.event, truncated] : [charged.event],
        update: { run },
      }
    }
    case 'outcome':
      return { next: { ...state, outcome: part.outcome }, effects: [] }
    case 'error':
      return modelFailed(state, ctx, part.error)
    default: {
      const unknownPart: never = part
      throw new Error(`Unknown model stream part ${JSON.stringify(unknownPart)}`)
    }
  }
}

function modelFailed(state: StreamingState, ctx: AgentContext, error: unknown): TransitionResult {
  state.stream.cancel()
  const failure = classifyModelFailure(error)
  // An aborted request is the run ending, not a model failure: the loop turns it into user_abort.
  if (ctx.signal.aborted || ('aborted' in failure && failure.aborted)) throw new AbortError()
  if (failure.retryable && waitOverCap(ctx.retry, failure.retryAfterMs)) {
    const seconds = (ms: number) => `${Number((ms / 1000).toFixed(1))} s`
    const message =
      `${providerLabel(ctx.model)} asks to wait ${seconds(failure.retryAfterMs)} before the next request, ` +
      `over the retry cap of ${seconds(ctx.retry.maxDelayMs)} (retry.maxDelayMs): the run ends rather than ` +
      `retry too early and be refused again. The provider said: ${failure.message}`
    return {
      next: { type: 'done', reason: 'error', result: { success: false, text: message } },
      effects: [{ type: 'error', message, retryable: false }],
    }
  }
  if (failure.retryable && state.attempt <= ctx.retry.maxRetries) {
    const delayMs = retryDelayMs(state.attempt, ctx.retry, failure.retryAfterMs)
    const message = `Model request failed (attempt ${state.attempt} of ${ctx.retry.maxRetries + 1}): ${failure.message}. Retrying in ${(delayMs / 1000).toFixed(1)} s.`
    ctx.log.warn({ runId: ctx.runId, attempt: state.attempt, delayMs }, message)
    return {
      next: { type: 'backoff', attempt: state.attempt + 1, delayMs, prompt: state.prompt },
      effects: [{ type: 'error', message, retryable: true }],
    }
  }
  const refusal = state.prompt.image ? visionRefusal(error) : undefined
  const message = failure.retryable
    ? `Model request failed after ${state.attempt} attempts: ${failure.message}`
    : (refusal ?? `Model request failed: ${failure.message}`)
  return {
    next: { type: 'done', reason: 'error', result: { success: false, text: message } },
    effects: [{ type: 'error', message, retryable: false }],
  }
}

function finishResponse(state: StreamingState, ctx: AgentContext): TransitionResult {
  // The provider said why the answer ended: that wins over whatever of AgentOutput arrived before it.
  if (state.outcome) return finishOutcomeTransition(ctx, state.outcome, state.output.text)
  const parsed = parseAgentOutput(state.output.raw(), ctx.tools)
  if (!parsed.ok) {
    const invalid = ctx.run.consecutiveInvalidOutputs + 1
    const run = {
      consecutiveInvalidOutputs: invalid,
      history: withCurrentStep(ctx.run.history, {
        result: { ok: false, text: `Unusable output: ${parsed.error}` },
      }),
    }
    const effects: EventDraft[] = [
      { type: 'error', message: `Unusable model output: ${parsed.error}`, retryable: true },
    ]
    if (invalid >= ctx.maxInvalidOutputs) {
      const text = `The model returned unusable output ${invalid} times in a row. Last problem: ${parsed.error}`
      return {
        next: { type: 'done', reason: 'error', result: { success: false, text } },
        effects,
        update: { run },
      }
    }
    const notes = [...ctx.run.notes, `Your previous output could not be used: ${parsed.error}`]
    return { next: { type: 'thinking' }, effects, update: { run: { ...run, notes } } }
  }

  const { output, repairs } = parsed
  if (repairs.length > 0) ctx.log.debug({ runId: ctx.runId, repairs }, 'repaired model output')
  const callId = `call_${ctx.run.step}`
  return {
    next: {
      type: 'executing',
      phase: 'start',
      queue: [{ callId, tool: output.action.tool, input: output.action.input }],
    },
    effects: [
      {
        type: 'reflection',
        evaluation_previous_goal: output.evaluation_previous_goal,
        memory: output.memory,
        next_goal: output.next_goal,
        // Its deltas are live-only: the step's free text is stored here, once.
        ...(state.output.text ? { text: state.output.text } : {}),
      },
    ],
    update: {
      run: { consecutiveInvalidOutputs: 0, history: withCurrentStep(ctx.run.history, { output }) },
    },
  }
}
