import { z } from 'zod'
import { JsonOutputSchema } from '../agent/output-schema.ts'
import { CostSchema, DoneReasonSchema, RunResultSchema, UsageSchema } from '../events/events.ts'
import { RecordingSchema } from '../recording/schema.ts'
import { SecretsSchema } from '../secrets/secrets.ts'

/** Request and response bodies of the API; the OpenAPI document is generated from them. */

const httpUrl = z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' })

/** A run's output schema: a JSON Schema object; an unusable one is a 400 naming the problem. */
export const OutputSchemaBodySchema = JsonOutputSchema.describe(
  'A JSON Schema (at most 64 KB) for the data the run returns: `done` must give data that matches it when it succeeds, and the final `done` event carries it as `result.data`.',
)

export const RunRequestSchema = z
  .strictObject({
    task: z
      .string()
      .trim()
      .min(1, 'must not be empty')
      .max(20_000)
      .optional()
      .describe("The task; optional with `replay`, whose recording's task is used."),
    replay: z
      .union([z.string().trim().min(1).max(200), RecordingSchema])
      .optional()
      .describe(
        'Replay a recording without the model: the id of a run (its recording), or a recording itself (docs/recording.md). The model, when one is configured, heals steps the page no longer allows.',
      ),
    variables: z
      .record(z.string().regex(/^[A-Za-z_][\w.-]*$/, 'must be a variable name'), z.string().max(20_000))
      .optional()
      .describe('Values of the `{{name}}` templates in the task and the recording.'),
    startUrl: httpUrl.optional(),
    output: OutputSchemaBodySchema.optional(),
    model: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .optional()
      .describe('"provider/model"; the server default when absent.'),
    maxTurns: z.number().int().min(1).max(1000).optional(),
    maxSessionTokens: z.number().int().min(1).optional(),
    allowedDomains: z
      .array(z.string().trim().min(1).max(253))
      .max(200)
      .optional()
      .describe(
        'Hosts the browser may reach: "host" (every port), "host:port" (that port), "*.host" (it and its subdomains); all when absent. The server itself and cloud metadata addresses are never reachable.',
      ),
    blockPrivateNetworks: z
      .boolean()
      .optional()
      .describe(
        'Also refuse private, loopback and link-local addresses (on by default when the server sets SEXTANT_BLOCK_PRIVATE).',
      ),
    secrets: SecretsSchema.optional(),
    vision: z
      .union([z.boolean(), z.strictObject({ labels: z.boolean().optional() })])
      .optional()
      .describe(
        "Show the model each step's screenshot next to the page view; the server default (SEXTANT_VISION) when absent.",
      ),
    subAgents: z
      .strictObject({
        max: z.number().int().min(1).max(10),
        maxDepth: z.number().int().min(1).max(3).optional(),
      })
      .optional()
      .describe(
        'Lets the model split the task with dispatch_agent: at most `max` sub-agents per call, nesting `maxDepth` deep (default 1: children do not dispatch). Each child is a run of its own, listed under this one.',
      ),
  })
  .refine((body) => body.task !== undefined || body.replay !== undefined, {
    message: 'is required (unless "replay" is given)',
    path: ['task'],
  })
export type RunRequest = z.infer<typeof RunRequestSchema>

export const EvalRequestSchema = z.strictObject({
  /** The suite: its YAML or JSON text (errors then name the line), or the suite object. */
  suite: z.union([z.string().min(1), z.unknown()]),
  /** Models as provider/model; default: the server's model. */
  models: z.array(z.string().min(1)).min(1).max(8).optional(),
  repeat: z.number().int().min(1).max(100).optional(),
  /** Runs at once; at most the server's SEXTANT_MAX_RUNS. */
  concurrency: z.number().int().min(1).max(32).optional(),
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

export const RunStatusSchema = z.enum(['queued', 'running', 'completed', 'stopped', 'failed'])

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

export const RunDetailSchema = RunViewSchema.extend({
  children: z.array(RunViewSchema).describe('The sub-agents this run dispatched, oldest first.'),
})

export const RunPageSchema = z.object({ runs: z.array(RunViewSchema), nextCursor: z.string().optional() })

export const ErrorBodySchema = z.object({ error: z.object({ code: z.string(), message: z.string() }) })

export const ListQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).optional(),
  cursor: z.string().min(1).optional(),
})
