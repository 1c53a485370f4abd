import { z } from 'zod'

import { artifactKinds } from '../../config-values.ts'
import { CostSchema, DoneReasonSchema, RunResultSchema, UsageSchema } from '../../events/events.ts'
import { SecretsSchema } from '../../secrets/secrets.ts'
import { runStatuses } from '../../store/run-store.ts'
import { webhookTypes } from '../../webhooks/webhook-message.ts'

/** Request and response bodies of the API; the OpenAPI document is generated from them. */

// The run request is the agent's (one schema for every surface); the API's body is it.
export { type RunRequest, RunRequestSchema } from '../../agent/run/run-request-fields.ts'

export const EvalRequestSchema = z.strictObject({
  /** The suite: its YAML or JSON text (errors then name the line), or the suite object. */
  suite: z.union([z.string().min(1), z.unknown()]),
  /** Models as provider/model; default: the server's model. */
  models: z.array(z.string().min(1)).min(1).max(8).optional(),
  repeat: z.number().int().min(1).max(100).optional(),
  /** Runs at once; at most the server's SEXTANT_MAX_RUNS. */
  concurrency: z.number().int().min(1).max(32).optional(),
  secrets: SecretsSchema.optional().describe(
    "Secret values for every task, as in POST /v1/runs. Over HTTP a suite's tasks may not name environment variables: the server's environment is never read.",
  ),
  taskSecrets: z
    .record(z.string(), SecretsSchema)
    .optional()
    .describe('Secret values for one task, by task id, over `secrets`.'),
})

export const ConfirmationBodySchema = z.strictObject({ approve: z.boolean() })
export const AnswerBodySchema = z.strictObject({ answer: z.string().max(20_000) })
/** What a delivered confirmation or answer is acknowledged with. */
export const ConfirmationReceiptSchema = z.object({
  runId: z.string(),
  callId: z.string(),
  approved: z.boolean(),
})
export const AnswerReceiptSchema = z.object({ runId: z.string(), questionId: z.string(), answer: z.string() })

/** Where a run's takeover stands after a takeover request or a hand-back. */
export const TakeoverStateSchema = z.object({
  runId: z.string(),
  takenOver: z
    .boolean()
    .describe('A person has the browser now (between takeover_started and takeover_ended).'),
  requested: z
    .boolean()
    .describe('A takeover was asked for and the run stops for it at its next step boundary.'),
})
export const InputReceiptSchema = z.object({ runId: z.string(), type: z.string() })

/** GET /v1/runs/:id/downloads: what the run's browser downloaded, each with the URL that serves it. */
export const DownloadListSchema = z.object({
  runId: z.string(),
  downloads: z.array(z.object({ name: z.string(), bytes: z.number().int(), url: z.string() })),
})

/** GET /v1/runs/:id/artifacts: the run's trace, videos and HAR, each with the URL that serves it. */
export const ArtifactListSchema = z.object({
  runId: z.string(),
  artifacts: z.array(
    z.object({
      name: z.string(),
      kind: z.enum(artifactKinds),
      bytes: z.number().int(),
      url: z.string(),
    }),
  ),
})

export const RunStatusSchema = z.enum(runStatuses)

export const RunViewSchema = z.object({
  id: z.string(),
  status: RunStatusSchema,
  task: z.string(),
  model: z.string(),
  startUrl: z.string().optional(),
  parentRunId: z.string().optional().describe("A sub-agent's run: the run that dispatched it."),
  reason: DoneReasonSchema.optional(),
  result: RunResultSchema.optional(),
  usage: UsageSchema,
  /** USD, once the run ended; null when the model's price is unknown. */
  costUsd: CostSchema.optional(),
  steps: z.number().int().nonnegative(),
  createdAt: z.string(),
  finishedAt: z.string().optional(),
})

export const WebhookAttemptSchema = z.object({
  id: z.string().describe('The webhook-id header: one per message, the same on each retry.'),
  type: z.enum(webhookTypes),
  attempt: z.number().int().positive(),
  at: z.string(),
  status: z.number().int().optional().describe("The receiver's HTTP status, when it answered."),
  error: z
    .string()
    .optional()
    .describe('Why the attempt got no answer (network, timeout, a refused address).'),
  durationMs: z.number().int().nonnegative(),
  delivered: z.boolean().describe('The receiver answered 2xx.'),
})

export const RunDetailSchema = RunViewSchema.extend({
  children: z.array(RunViewSchema).describe('The sub-agents this run dispatched, oldest first.'),
  webhookAttempts: z
    .array(WebhookAttemptSchema)
    .optional()
    .describe("Each attempt at delivering the run's webhooks, oldest first; absent when there was none."),
})

export const RunPageSchema = z.object({ runs: z.array(RunViewSchema), nextCursor: z.string().optional() })

export const ErrorBodySchema = z.object({ error: z.object({ code: z.string(), message: z.string() }) })

export const ListQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).optional(),
  cursor: z.string().min(1).optional(),
})
