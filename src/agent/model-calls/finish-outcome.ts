import type { FinishOutcome } from '../../model/finish-reasons.ts'
import { providerLabel } from '../../model/retry-delay.ts'
import { withCurrentStep } from '../run/apply-update.ts'
import type { AgentContext, TransitionResult } from '../run/run-context.ts'

/** Outcomes another try can mend, with the note the model reads for it: each is fed back once in a row. */
const feedback: Partial<Record<FinishOutcome['kind'], (outcome: FinishOutcome) => string>> = {
  cut_off: () =>
    'Your previous answer was cut off at the output limit before AgentOutput was complete. Be brief: ' +
    'one short sentence each for evaluation_previous_goal, memory and next_goal, and one action.',
  recitation: () =>
    'Your previous answer was stopped for reciting existing text word for word. Do not copy long ' +
    'passages from the page: say what you need in your own words, briefly.',
  malformed_call: (outcome) =>
    `Your previous call to AgentOutput was malformed${outcome.detail ? ` (${outcome.detail})` : ''}. ` +
    'Call AgentOutput once, with JSON arguments that match its schema.',
}

/**
 * A model answer the provider ended for a reason of its own (a refusal, a
 * safety or recitation block, a blocked prompt, a cut-off), as the run's next
 * state: fed back to the model once where another try can help, else the run
 * ends with reason `error`, the provider's reason in `result.outcome` and the
 * words that explain it (the refusal's own) in `result.text`.
 */
export function finishOutcomeTransition(
  ctx: AgentContext,
  outcome: FinishOutcome,
  /** The free text the model wrote: a refusal's words. */
  text: string,
): TransitionResult {
  const message = describeOutcome(outcome, text.trim(), providerLabel(ctx.model))
  const note = feedback[outcome.kind]
  const invalid = ctx.run.consecutiveInvalidOutputs + 1
  const history = withCurrentStep(ctx.run.history, { result: { ok: false, text: message } })
  if (note && invalid < 2 && invalid < ctx.maxInvalidOutputs) {
    return {
      next: { type: 'thinking' },
      effects: [{ type: 'error', message: `${message} Asking the model once more.`, retryable: true }],
      update: {
        run: { consecutiveInvalidOutputs: invalid, history, notes: [...ctx.run.notes, note(outcome)] },
      },
    }
  }
  const { kind, providerReason } = outcome
  return {
    next: {
      type: 'done',
      reason: 'error',
      result: { success: false, text: message, outcome: { kind, providerReason } },
    },
    effects: [{ type: 'error', message, retryable: false }],
    update: { run: { consecutiveInvalidOutputs: invalid, history } },
  }
}

function describeOutcome(outcome: FinishOutcome, words: string, provider: string): string {
  const reason = outcome.providerReason
  const detail = outcome.detail ? `: ${outcome.detail}` : ''
  switch (outcome.kind) {
    case 'refusal': {
      const said = words || outcome.detail
      return said ? `The model refused the task: "${said}"` : 'The model refused the task without saying why.'
    }
    case 'content_filter':
      return `${provider}'s safety filter stopped the model's answer (${reason})${detail}.`
    case 'blocked_prompt':
      return `${provider} blocked the prompt before the model answered (${reason}): the task or the page holds content it refuses to process.`
    case 'recitation':
      return `${provider} stopped the model's answer for reciting existing text (${reason})${detail}.`
    case 'malformed_call':
      return `${provider} reports that the model's call to AgentOutput was malformed (${reason})${detail}.`
    case 'cut_off':
      return `The model's answer was cut off at its output limit (${reason}) before AgentOutput was complete.`
    default: {
      const unknownKind: never = outcome.kind
      return `The model's answer ended with ${String(unknownKind)} (${reason}).`
    }
  }
}
