import { z } from 'zod'
import { CostSchema, DoneReasonSchema, ModelOutcomeSchema } from './events.ts'

/**
 * The result of `sextant eval` / `runEval()` / `POST /v1/evals`: the shape of
 * `--json` output, and of the `eval_finished` event's `report`. Documented in
 * docs/eval.md; a change here is a change of a public format.
 */

export const EvalTokensSchema = z.object({
  input: z.number().int().nonnegative(),
  output: z.number().int().nonnegative(),
  /** Input tokens served from the provider's prompt cache (0 when it reported none). */
  cached: z.number().int().nonnegative(),
})

export const EvalRunSchema = z.object({
  /** Open it with `sextant runs show <runId>` or GET /v1/runs/<runId>. */
  runId: z.string(),
  /** 1…repeat. */
  attempt: z.number().int().positive(),
  /** Every check held and the run ended `model_stop` (the model ended it); `reason` says how it ended. */
  passed: z.boolean(),
  /** What the model claimed (`done.success`), reported beside `passed`, never trusted alone. */
  modelSuccess: z.boolean(),
  reason: DoneReasonSchema,
  /** The model's final text (`done.text`). */
  resultText: z.string(),
  /** The data the run gave (`done.data`), for a task with an output schema. */
  data: z.unknown().optional(),
  /** With reason error: the provider's refusal, block or cut-off that ended the run (`done.result.outcome`). */
  outcome: ModelOutcomeSchema.optional(),
  steps: z.number().int().nonnegative(),
  tokens: EvalTokensSchema,
  costUsd: CostSchema,
  durationMs: z.number().nonnegative(),
  /** Each check that did not hold, with what was found instead. */
  failedChecks: z.array(z.string()),
})
export type EvalRun = z.infer<typeof EvalRunSchema>

export const EvalTaskSchema = z.object({
  id: z.string(),
  model: z.string(),
  /** Runs that passed, of `total`. */
  passed: z.number().int().nonnegative(),
  total: z.number().int().nonnegative(),
  runs: z.array(EvalRunSchema),
})
export type EvalTask = z.infer<typeof EvalTaskSchema>

export const EvalTotalsSchema = z.object({
  runs: z.number().int().nonnegative(),
  passedRuns: z.number().int().nonnegative(),
  /** Tasks × models. */
  tasks: z.number().int().nonnegative(),
  /** pass@1: the share of runs that passed (0–1). */
  passAt1: z.number().min(0).max(1),
  /** pass^K: the share of tasks whose K runs all passed (0–1). */
  passAllK: z.number().min(0).max(1),
  tokens: EvalTokensSchema,
  /** null when any run's cost is unknown. */
  costUsd: CostSchema,
  durationMs: z.number().nonnegative(),
})

export const EvalReportSchema = z.object({
  /** The suite's name, else its file name. */
  suite: z.string(),
  startedAt: z.string(),
  finishedAt: z.string(),
  models: z.array(z.string()),
  repeat: z.number().int().positive(),
  tasks: z.array(EvalTaskSchema),
  /** Over all models. */
  totals: EvalTotalsSchema,
  /** Per model, in `models` order. */
  modelTotals: z.record(z.string(), EvalTotalsSchema),
})
export type EvalReport = z.infer<typeof EvalReportSchema>

const base = { evalId: z.string(), at: z.string() }

/**
 * Events of an eval, beside its runs' own events (whose vocabulary is
 * unchanged): the SSE of POST /v1/evals carries both.
 */
export const evalEventSchemas = {
  eval_started: z.object({
    type: z.literal('eval_started'),
    ...base,
    suite: z.string(),
    models: z.array(z.string()),
    tasks: z.array(z.string()),
    repeat: z.number().int().positive(),
    /** Runs to do: tasks × models × repeat. */
    total: z.number().int().positive(),
    concurrency: z.number().int().positive(),
  }),
  eval_run_started: z.object({
    type: z.literal('eval_run_started'),
    ...base,
    taskId: z.string(),
    model: z.string(),
    attempt: z.number().int().positive(),
    runId: z.string(),
  }),
  eval_run_finished: z.object({
    type: z.literal('eval_run_finished'),
    ...base,
    taskId: z.string(),
    model: z.string(),
    run: EvalRunSchema,
  }),
  eval_progress: z.object({
    type: z.literal('eval_progress'),
    ...base,
    done: z.number().int().nonnegative(),
    total: z.number().int().positive(),
    passing: z.number().int().nonnegative(),
    tokens: EvalTokensSchema,
    costUsd: CostSchema,
    elapsedMs: z.number().nonnegative(),
    /** Estimated time left, from the mean time per finished run; absent before the first. */
    etaMs: z.number().nonnegative().optional(),
  }),
  eval_finished: z.object({
    type: z.literal('eval_finished'),
    ...base,
    report: EvalReportSchema,
  }),
} as const

export const EvalEventSchema = z.discriminatedUnion('type', [
  evalEventSchemas.eval_started,
  evalEventSchemas.eval_run_started,
  evalEventSchemas.eval_run_finished,
  evalEventSchemas.eval_progress,
  evalEventSchemas.eval_finished,
])
export type EvalEvent = z.infer<typeof EvalEventSchema>
export type EvalEventType = EvalEvent['type']
export const evalEventTypes = Object.keys(evalEventSchemas) as EvalEventType[]

/** Whether an event of an eval's stream is one of the eval's own (not a run's). */
export function isEvalEvent(event: { type: string }): event is EvalEvent {
  return event.type in evalEventSchemas
}
