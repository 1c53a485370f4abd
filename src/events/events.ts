import { z } from 'zod'
import {
  BoxOffsetSchema,
  CallOutcomeSchema,
  callSources,
  ElementTargetSchema,
  ReplayStatsSchema,
} from './call-schemas.ts'
import { PageLogSchema } from './page-log.ts'

/**
 * The event vocabulary: the same object on every surface (library, SSE,
 * CLI --json, store). Every event is `{ type, runId, seq, at, ...data }`.
 */

export const doneReasons = [
  'model_stop',
  'max_turns',
  'user_abort',
  'error',
  'budget_exceeded',
  'loop_detected',
] as const
export const DoneReasonSchema = z.enum(doneReasons)
export type DoneReason = z.infer<typeof DoneReasonSchema>

const tokenCount = z.number().int().nonnegative()

/**
 * Tokens of one model call or a sum of them. `inputTokens` counts every input
 * token; the optional details are present only when the provider reports them:
 * `cachedInputTokens` read from its prompt cache (billed at a fraction),
 * `cacheWriteTokens` written to it (Anthropic bills these above the input
 * price), `reasoningTokens` among the output tokens.
 */
export const UsageSchema = z.object({
  inputTokens: tokenCount,
  outputTokens: tokenCount,
  totalTokens: tokenCount,
  cachedInputTokens: tokenCount.optional(),
  cacheWriteTokens: tokenCount.optional(),
  reasoningTokens: tokenCount.optional(),
})
export type Usage = z.infer<typeof UsageSchema>

/** A cost in US dollars; null when the model's price is unknown (never 0 for "unknown"). */
export const CostSchema = z.number().nonnegative().nullable()

/** Which model call a `usage` event accounts for. */
export const usageSources = ['step', 'compaction', 'supervisor'] as const

/**
 * Why the model's answer could not be used, when the provider said why (its
 * finish reason): a run that ends on one has reason `error` and carries it in
 * `result.outcome`. See docs/events.md.
 */
export const modelOutcomes = [
  'refusal',
  'content_filter',
  'blocked_prompt',
  'recitation',
  'malformed_call',
  'cut_off',
] as const
export const ModelOutcomeSchema = z.object({
  kind: z.enum(modelOutcomes),
  /** The provider's own word for it: `refusal`, `SAFETY`, `PROHIBITED_CONTENT`, `max_tokens`, `max_output_tokens`… */
  providerReason: z.string(),
})
export type ModelOutcome = z.infer<typeof ModelOutcomeSchema>

export const RunResultSchema = z.object({
  success: z.boolean(),
  text: z.string(),
  /** With an output schema: the data `done` gave, validated against it. */
  data: z.unknown().optional(),
  /** The run ended (reason `error`) on a refusal, a block or a cut-off the provider reported. */
  outcome: ModelOutcomeSchema.optional(),
})
export type RunResult = z.infer<typeof RunResultSchema>

export const stuckKinds = ['stall', 'oscillation', 'url_cycle', 'repeated_action', 'error_budget'] as const
export const StuckKindSchema = z.enum(stuckKinds)
export type StuckKind = z.infer<typeof StuckKindSchema>

/**
 * What a `recovery` did: one of the scripted recoveries (tried in this order,
 * each once per stuck episode), or `supervisor`, a second model's review.
 */
export const recoveryStrategies = [
  'scroll_top',
  'escape',
  'reload',
  'navigate_last_progress',
  'supervisor',
] as const
export const RecoveryStrategySchema = z.enum(recoveryStrategies)
export type RecoveryStrategyName = z.infer<typeof RecoveryStrategySchema>

const base = {
  runId: z.string(),
  seq: z.number().int().nonnegative(),
  at: z.string(),
  /**
   * Set on a sub-agent's event forwarded into its parent's stream: the run that
   * dispatched it, which of that dispatch's tasks it runs (from 0), and how deep
   * it is (1 for a top-level run's child). `runId` stays the child's own; `seq`
   * is the parent stream's, so that stream stays gapless.
   */
  parentRunId: z.string().optional(),
  childIndex: z.number().int().nonnegative().optional(),
  depth: z.number().int().positive().optional(),
}

const TabSchema = z.object({ id: z.string(), url: z.string(), title: z.string(), active: z.boolean() })

export const eventSchemas = {
  run_started: z.object({
    type: z.literal('run_started'),
    ...base,
    task: z.string(),
    model: z.string(),
    maxTurns: z.number().int().positive(),
    startUrl: z.string().optional(),
    /** The caller's instructions for the run, as the system prompt carries them (a recording keeps them). */
    instructions: z.string().optional(),
    /** The browser context the run asked for (device, locale, …), less its headers' values (a recording keeps it). */
    browser: z.record(z.string(), z.unknown()).optional(),
    /** The values of the task's `{{name}}` templates (a recording keeps the templates). */
    variables: z.record(z.string(), z.string()).optional(),
    /** The run's output schema, as JSON Schema: `done` carries data that matches it (a recording keeps it). */
    output: z.record(z.string(), z.unknown()).optional(),
    /** The saved profile the run starts from (its name only, never its values). */
    profile: z.string().optional(),
    /** The names of the run's secrets (never a value): the only ones an exported spec may read back. */
    secrets: z.array(z.string()).optional(),
  }),
  step_started: z.object({
    type: z.literal('step_started'),
    ...base,
    step: z.number().int().positive(),
    maxTurns: z.number().int().positive(),
  }),
  observation: z.object({
    type: z.literal('observation'),
    ...base,
    url: z.string(),
    title: z.string(),
    tabs: z.array(TabSchema),
    refs: z.number().int().nonnegative(),
    pageViewTokens: z.number().int().nonnegative(),
    notes: z.array(z.string()),
    /** URL of the step's screenshot (`/v1/runs/<id>/steps/<n>/screenshot`), when one was kept. */
    screenshot: z.string().optional(),
    /** What the pages logged as errors and warnings, and their failed or refused requests, since the step before. */
    pageLog: PageLogSchema.optional(),
  }),
  text_delta: z.object({
    type: z.literal('text_delta'),
    ...base,
    /** Which stream the text belongs to: the model's free text, or a reflection field as it is written. */
    field: z.enum(['text', 'evaluation_previous_goal', 'memory', 'next_goal']),
    text: z.string(),
  }),
  reflection: z.object({
    type: z.literal('reflection'),
    ...base,
    evaluation_previous_goal: z.string(),
    memory: z.string(),
    next_goal: z.string(),
    /** The model's free text of the step (besides its action), when it wrote any: its text_delta of field `text`, whole. */
    text: z.string().optional(),
  }),
  tool_call_start: z.object({
    type: z.literal('tool_call_start'),
    ...base,
    callId: z.string(),
    tool: z.string(),
    input: z.unknown(),
    /** Where the acted-on element is on the step's screenshot, as fractions of the viewport. */
    box: z.object({ x: z.number(), y: z.number(), width: z.number(), height: z.number() }).optional(),
    /** Who asked for the call: the model, or a recording being replayed. Absent in events stored before replays. */
    source: z.enum(callSources).optional(),
    /** The element the call acts on, described durably (role, name, context, attributes), for recordings. */
    target: ElementTargetSchema.optional(),
    /** The element a `drag` drops onto (its `to`), described durably, for recordings. */
    dropTarget: ElementTargetSchema.optional(),
    /** For `click_at`, `hover_at` and `drag_at`: where in `target`'s box the (start) point was. */
    offset: BoxOffsetSchema.optional(),
    /** For `drag_at`: the element under its end point (`dropTarget`) and where in its box the point was. */
    dropOffset: BoxOffsetSchema.optional(),
  }),
  tool_call_result: z.object({
    type: z.literal('tool_call_result'),
    ...base,
    callId: z.string(),
    ok: z.boolean(),
    result: z.string(),
    durationMs: z.number().nonnegative(),
    source: z.enum(callSources).optional(),
    /** What the call left on the page (URL, target gone, typed text shown), for a recording's expectations. */
    outcome: CallOutcomeSchema.optional(),
    /** The run's secrets the call typed, by name, under the input field they went through (`{ "text": ["pw"] }`). */
    secrets: z.record(z.string(), z.array(z.string())).optional(),
  }),
  confirmation_required: z.object({
    type: z.literal('confirmation_required'),
    ...base,
    callId: z.string(),
    tool: z.string(),
    input: z.unknown(),
    reason: z.string(),
    expiresAt: z.string(),
  }),
  confirmation_resolved: z.object({
    type: z.literal('confirmation_resolved'),
    ...base,
    callId: z.string(),
    approved: z.boolean(),
    by: z.enum(['user', 'policy', 'timeout']),
  }),
  question: z.object({ type: z.literal('question'), ...base, questionId: z.string(), question: z.string() }),
  answer: z.object({ type: z.literal('answer'), ...base, questionId: z.string(), answer: z.string() }),
  /**
   * A person has the run's browser: the model asked for one (`hand_over`) or a
   * user took over. The model is not asked again until `takeover_ended`.
   */
  takeover_started: z.object({
    type: z.literal('takeover_started'),
    ...base,
    by: z.enum(['model', 'user']),
    reason: z.string().optional(),
  }),
  /** The person handed the browser back (or nobody came in time): the run observes the page afresh and goes on. */
  takeover_ended: z.object({
    type: z.literal('takeover_ended'),
    ...base,
    durationMs: z.number().nonnegative(),
  }),
  compaction_start: z.object({
    type: z.literal('compaction_start'),
    ...base,
    estimatedTokens: z.number().int().nonnegative(),
    threshold: z.number().int().positive(),
  }),
  compaction_end: z.object({
    type: z.literal('compaction_end'),
    ...base,
    tokensBefore: z.number().int().nonnegative(),
    tokensAfter: z.number().int().nonnegative(),
    ok: z.boolean(),
  }),
  warning: z.object({ type: z.literal('warning'), ...base, code: z.string(), message: z.string() }),
  stuck_detected: z.object({
    type: z.literal('stuck_detected'),
    ...base,
    kind: StuckKindSchema,
    step: z.number().int().nonnegative(),
    detail: z.string(),
  }),
  recovery: z.object({
    type: z.literal('recovery'),
    ...base,
    kind: StuckKindSchema,
    strategy: RecoveryStrategySchema,
    detail: z.string(),
  }),
  error: z.object({ type: z.literal('error'), ...base, message: z.string(), retryable: z.boolean() }),
  /**
   * One model call finished: its tokens and cost, and the run's totals so far.
   * The `usage` events of a run add up to its `done.usage` and `done.costUsd`.
   */
  usage: z.object({
    type: z.literal('usage'),
    ...base,
    step: z.number().int().nonnegative(),
    source: z.enum(usageSources),
    usage: UsageSchema,
    costUsd: CostSchema,
    runUsage: UsageSchema,
    runCostUsd: CostSchema,
  }),
  done: z.object({
    type: z.literal('done'),
    ...base,
    reason: DoneReasonSchema,
    result: RunResultSchema,
    usage: UsageSchema,
    /** The run's cost; absent only in events stored before costs were recorded. */
    costUsd: CostSchema.optional(),
    steps: z.number().int().nonnegative(),
    durationMs: z.number().nonnegative(),
    /** A replay's tally: recorded steps replayed, healed by the model, and the model calls that took. */
    replay: ReplayStatsSchema.optional(),
  }),
} as const

export type EventType = keyof typeof eventSchemas
export const eventTypes = Object.keys(eventSchemas) as EventType[]

export const AgentEventSchema = z.discriminatedUnion('type', [
  eventSchemas.run_started,
  eventSchemas.step_started,
  eventSchemas.observation,
  eventSchemas.text_delta,
  eventSchemas.reflection,
  eventSchemas.tool_call_start,
  eventSchemas.tool_call_result,
  eventSchemas.confirmation_required,
  eventSchemas.confirmation_resolved,
  eventSchemas.question,
  eventSchemas.answer,
  eventSchemas.takeover_started,
  eventSchemas.takeover_ended,
  eventSchemas.compaction_start,
  eventSchemas.compaction_end,
  eventSchemas.warning,
  eventSchemas.stuck_detected,
  eventSchemas.recovery,
  eventSchemas.error,
  eventSchemas.usage,
  eventSchemas.done,
])

export type AgentEvent = z.infer<typeof AgentEventSchema>
export type AgentEventOf<T extends EventType> = Extract<AgentEvent, { type: T }>

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never
/** An event as a handler returns it; the loop stamps runId, seq and at. */
export type EventDraft = DistributiveOmit<AgentEvent, 'runId' | 'seq' | 'at'>

/**
 * Events that reach live followers but are not stored: the model's text as it
 * streams (`text_delta`), 50–150 chunks a step with a model that streams token
 * by token. What they carry is stored once, whole, in the step's `reflection`.
 * Such an event takes no seq of its own: it carries the seq of the event before
 * it, so the stored events' seq stays gapless and a stream resumed from the
 * store (Last-Event-ID) is the same stream without them.
 */
export function isLiveOnly(event: { type: AgentEvent['type'] }): boolean {
  return event.type === 'text_delta'
}

/** Stamps and validates a draft. A draft that fails its schema is a bug in Sextant, so it throws. */
export function stampEvent(draft: EventDraft, runId: string, seq: number, at: Date): AgentEvent {
  return AgentEventSchema.parse({ ...draft, runId, seq, at: at.toISOString() })
}
