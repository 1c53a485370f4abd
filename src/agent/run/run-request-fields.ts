import { z } from 'zod'
import { ProxySchema } from '../../browser/network/upstream-proxy.ts'
import { ArtifactsSchema } from '../../browser/session/artifacts/artifact-settings.ts'
import { ContextSettingsSchema } from '../../browser/session/context-settings.ts'
import { RecordingSchema } from '../../recording/schema.ts'
import { SecretsSchema } from '../../secrets/secrets.ts'
import { isTraceparent } from '../../telemetry/traceparent.ts'
import { profileNamePattern, profileNameRule } from '../../util/profile-name.ts'
import { JsonOutputSchema } from '../output/output-schema.ts'
import { profileSaveModes } from './profile-save.ts'

/**
 * What a caller can ask of a run, once: the HTTP API's body is this schema,
 * and the MCP tools' inputs (mcp/), eval tasks (eval/suite.ts) and the CLI's
 * flags are views of it, built from these very fields so their validation and
 * descriptions cannot drift apart. One adapter (run-request.ts) turns a request
 * into RunOptions for every surface; test/agent/run/run-request.test.ts fails when
 * a surface lacks a field without a written reason.
 */

/** Instructions ride in every step's system prompt: long enough for a site's rules, short enough for a small model's context. */
export const instructionsMaxChars = 8000

const httpUrl = z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' })

export const runRequestFields = {
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
  instructions: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(instructionsMaxChars)
    .optional()
    .describe(
      "The caller's own rules for this run (a site's conventions, a house style), at most 8,000 characters: added to the system prompt, where the provider caches it, and kept in the run's events and recording (a replay that heals uses the recording's unless it is given others).",
    ),
  output: JsonOutputSchema.describe(
    'A JSON Schema (at most 64 KB) for the data the run returns: `done` must give data that matches it when it succeeds, and the final `done` event carries it as `result.data`.',
  ).optional(),
  maxTurns: z.number().int().min(1).max(1000).optional(),
  maxSessionTokens: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe('Total tokens (children included) after which the run ends with budget_exceeded.'),
  maxCostUsd: z
    .number()
    .positive()
    .max(10_000)
    .optional()
    .describe(
      "US dollars (the model's price times its tokens, children included) after which the run ends with budget_exceeded. Refused for a model without a price.",
    ),
  maxDurationMs: z
    .number()
    .int()
    .min(1)
    .max(7 * 24 * 3_600_000)
    .optional()
    .describe(
      "Milliseconds of wall-clock time after which the run ends with budget_exceeded, whatever it waits for; the server's SEXTANT_MAX_RUN_MS when absent.",
    ),
  allowedDomains: z
    .array(z.string().trim().min(1).max(253))
    .max(200)
    .optional()
    .describe(
      'Hosts the browser may reach: "host" (every port), "host:port" (that port), "*.host" (it and its subdomains); all when absent. The server itself and cloud metadata addresses are never reachable.',
    ),
  profile: z
    .string()
    .regex(profileNamePattern, `must be a profile name: ${profileNameRule}`)
    .optional()
    .describe(
      'A saved browser profile to start from: its cookies, local storage and IndexedDB (only of sites `allowedDomains` reaches), saved back when the run ends (see `profileSave`). Created by the first run that saves it.',
    ),
  handover: z
    .boolean()
    .optional()
    .describe(
      'Whether a person may take the browser over (POST /v1/runs/:id/takeover) and the model may ask for one with hand_over (default true).',
    ),
  proxy: ProxySchema.optional(),
  browser: ContextSettingsSchema.optional(),
  artifacts: ArtifactsSchema.optional(),
  webhook: httpUrl
    .max(2048)
    .optional()
    .describe(
      "An http(s) URL told when the run ends (and when it needs a person: takeover_started, confirmation_required), by a POST signed as the Standard Webhooks specification says, under the server's SEXTANT_WEBHOOK_SECRET; retried with backoff. Refused for the server itself, loopback, cloud metadata addresses, and hosts outside SEXTANT_WEBHOOK_HOSTS when set.",
    ),
  traceparent: z
    .string()
    .trim()
    .refine(isTraceparent, {
      message: 'must be a W3C traceparent: 00-<32 hex digits, the trace id>-<16, the span id>-<2, the flags>',
    })
    .optional()
    .describe(
      "A W3C Trace Context traceparent: the run's OpenTelemetry trace becomes part of the caller's, under this span (over HTTP, the `traceparent` header does the same; this field wins).",
    ),
  priority: z
    .number()
    .int()
    .min(-1000)
    .max(1000)
    .optional()
    .describe(
      'With the shared queue (SEXTANT_QUEUE): runs of a higher priority are claimed first, first come within one priority (default 0).',
    ),
  queueTimeoutMs: z
    .number()
    .int()
    .min(1000)
    .max(7 * 24 * 3_600_000)
    .optional()
    .describe(
      'With the shared queue (SEXTANT_QUEUE): how long the run may wait for a server; one that waited longer ends with reason `error`, saying so (default SEXTANT_QUEUE_TIMEOUT_MS, else no limit).',
    ),
  profileSave: z
    .enum(profileSaveModes)
    .optional()
    .describe(
      'When the run saves its profile back: `success` (the default) only after the model ended with success, `always`, or `never`.',
    ),
  model: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .describe('"provider/model"; the server default when absent.'),
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
}

/** A run request: the HTTP API's body (POST /v1/runs), and what the other surfaces' inputs are views of. */
export const RunRequestSchema = z
  .strictObject(runRequestFields)
  .refine((body) => body.task !== undefined || body.replay !== undefined, {
    message: 'is required (unless "replay" is given)',
    path: ['task'],
  })
export type RunRequest = z.infer<typeof RunRequestSchema>
export type RunRequestField = keyof typeof runRequestFields
