import type { EventDraft, Usage } from '../../events/events.ts'
import { mayCutPrompt } from '../../model/request-forms.ts'
import { estimateTokens } from '../prompt/step-prompt.ts'
import type { AgentContext } from '../run/run-context.ts'
import type { ModelPrompt } from '../run/run-state.ts'

/**
 * A server whose context window is smaller than the step cuts the prompt
 * without saying so: Ollama drops messages from the front (the task goes
 * first) and reports what it kept as `prompt_tokens` (its `prompt_eval_count`).
 * A reported prompt far below the step's own text means it was cut: the run is
 * told once, with how to give the model a larger window.
 */

/** Reported below this share of the step's text: the server did not read all of it (tokenizers differ by far less). */
const keptShare = 0.7
/** And by at least this many tokens, so a short prompt's tokenizer differences never warn. */
const minMissing = 256
/** No server's default window is smaller (2,048 at the least): a lower count is the server's accounting, not a cut. */
const minWindow = 1_000

export function contextWarning(ctx: AgentContext, prompt: ModelPrompt, usage: Usage): EventDraft | undefined {
  if (ctx.run.contextWarned || usage.inputTokens < minWindow || !mayCutPrompt(ctx.model)) return undefined
  // The text alone, without the tool schema or the chat template: the real prompt is larger still.
  const sent = estimateTokens([prompt.system, ...prompt.stable, prompt.volatile].join('\n'))
  if (usage.inputTokens >= sent * keptShare || sent - usage.inputTokens < minMissing) return undefined
  return {
    type: 'warning',
    code: 'context_truncated',
    message:
      `The model's server read ${usage.inputTokens} tokens of a step of about ${sent}: its context window is ` +
      'smaller than one step, so it cut the prompt (the task and the page view may be missing) and the ' +
      'model is acting half-blind. Give the model a larger context: for Ollama, start it with ' +
      'OLLAMA_CONTEXT_LENGTH=16384 ollama serve, or set PARAMETER num_ctx 16384 in its Modelfile; for ' +
      "llama.cpp's server, -c 16384; for vLLM, --max-model-len. See docs/models.md#local-servers.",
  }
}
