import type { ModelOutcome } from '../events/events.ts'

/** A finish reason that is an outcome: what the provider said, and any words of its own that explain it. */
export interface FinishOutcome extends ModelOutcome {
  /** Anthropic's `stop_details.explanation`, Gemini's `finishMessage`. */
  detail?: string
}

/** What the AI SDK reports at the end of a model call. */
export interface ModelFinish {
  /** The SDK's unified reason: 'stop', 'length', 'content-filter', 'tool-calls', 'error', 'other'. */
  finishReason: string | undefined
  /** The provider's own reason: `refusal`, `max_tokens`, `SAFETY`, `RECITATION`, `max_output_tokens`… */
  rawFinishReason: string | undefined
  providerMetadata: unknown
}

/** Gemini's reasons for stopping a candidate that are a safety or policy filter, not the model's own refusal. */
const filterReasons = new Set([
  'content_filter',
  'SAFETY',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
])

/**
 * Reads a provider's finish reason as an outcome, or undefined for an
 * ordinary answer. How each provider's reasons reach here through the AI SDK:
 * - refusal: Anthropic `stop_reason: "refusal"` (content-filter, raw
 *   `refusal`); OpenAI Chat `delta.refusal` (content-filter, raw `stop`) and
 *   the Responses API's `refusal` content (content-filter, no raw reason);
 * - content_filter: OpenAI `finish_reason: "content_filter"`, Gemini `SAFETY`,
 *   `BLOCKLIST`, `PROHIBITED_CONTENT`, `SPII`, `IMAGE_SAFETY`;
 * - blocked_prompt: Gemini `promptFeedback.blockReason`, with no candidate;
 * - recitation: Gemini `RECITATION`;
 * - malformed_call: Gemini `MALFORMED_FUNCTION_CALL` (unified 'error');
 * - cut_off: 'length': Anthropic `max_tokens`, Chat `length`, Responses
 *   `incomplete` with `max_output_tokens`, Gemini `MAX_TOKENS`.
 */
export function finishOutcome(finish: ModelFinish): FinishOutcome | undefined {
  const raw = finish.rawFinishReason
  const detail = providerDetail(finish.providerMetadata)
  const withDetail = (outcome: ModelOutcome): FinishOutcome => (detail ? { ...outcome, detail } : outcome)
  if (raw === 'MALFORMED_FUNCTION_CALL') return withDetail({ kind: 'malformed_call', providerReason: raw })
  if (finish.finishReason === 'length') return { kind: 'cut_off', providerReason: raw ?? 'length' }
  if (finish.finishReason !== 'content-filter') return undefined
  const blockReason = promptBlockReason(finish.providerMetadata)
  if (blockReason !== undefined && raw === blockReason)
    return { kind: 'blocked_prompt', providerReason: blockReason }
  if (raw === 'RECITATION') return withDetail({ kind: 'recitation', providerReason: raw })
  if (raw !== undefined && filterReasons.has(raw))
    return withDetail({ kind: 'content_filter', providerReason: raw })
  return withDetail({ kind: 'refusal', providerReason: 'refusal' })
}

function promptBlockReason(metadata: unknown): string | undefined {
  const reason = field(field(field(metadata, 'google'), 'promptFeedback'), 'blockReason')
  return typeof reason === 'string' ? reason : undefined
}

function providerDetail(metadata: unknown): string | undefined {
  const explanation = field(field(field(metadata, 'anthropic'), 'stopDetails'), 'explanation')
  if (typeof explanation === 'string' && explanation) return explanation
  const finishMessage = field(field(metadata, 'google'), 'finishMessage')
  return typeof finishMessage === 'string' && finishMessage ? finishMessage : undefined
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined
}
