import { z } from 'zod'

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

export const UsageSchema = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  totalTokens: z.number().int().nonnegative(),
})
export type Usage = z.infer<typeof UsageSchema>

export const RunResultSchema = z.object({ success: z.boolean(), text: z.string() })
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
  }),
  tool_call_start: z.object({
    type: z.literal('tool_call_start'),
    ...base,
    callId: z.string(),
    tool: z.string(),
    input: z.unknown(),
  }),
  tool_call_result: z.object({
    type: z.literal('tool_call_result'),
    ...base,
    callId: z.string(),
    ok: z.boolean(),
    result: z.string(),
    durationMs: z.number().nonnegative(),
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
  done: z.object({
    type: z.literal('done'),
    ...base,
    reason: DoneReasonSchema,
    result: RunResultSchema,
    usage: UsageSchema,
    steps: z.number().int().nonnegative(),
    durationMs: z.number().nonnegative(),
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
  eventSchemas.compaction_start,
  eventSchemas.compaction_end,
  eventSchemas.warning,
  eventSchemas.stuck_detected,
  eventSchemas.recovery,
  eventSchemas.error,
  eventSchemas.done,
])

export type AgentEvent = z.infer<typeof AgentEventSchema>
export type AgentEventOf<T extends EventType> = Extract<AgentEvent, { type: T }>

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never
/** An event as a handler returns it; the loop stamps runId, seq and at. */
export type EventDraft = DistributiveOmit<AgentEvent, 'runId' | 'seq' | 'at'>

/** Stamps and validates a draft. A draft that fails its schema is a bug in Sextant, so it throws. */
export function stampEvent(draft: EventDraft, runId: string, seq: number, at: Date): AgentEvent {
  return AgentEventSchema.parse({ ...draft, runId, seq, at: at.toISOString() })
}
