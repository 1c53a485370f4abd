import { z } from 'zod'

import { runRequestFields } from '../agent/run/run-request-fields.ts'
import { RecordingSchema } from '../recording/schema.ts'
import { runStatuses } from '../store/run-store.ts'

/**
 * The MCP tools' inputs, built from the run request fields the HTTP API uses
 * (agent/run/run-request-fields.ts), so a tool's schema and description cannot
 * drift from the API's.
 */

const {
  task,
  startUrl,
  instructions,
  allowedDomains,
  maxTurns,
  maxSessionTokens,
  maxCostUsd,
  maxDurationMs,
  variables,
  output,
  profile,
  handover,
  proxy,
  browser,
  artifacts,
  priority,
  queueTimeoutMs,
  profileSave,
  model,
  blockPrivateNetworks,
  vision,
  subAgents,
  webhook,
} = runRequestFields

// Over stdio no viewer serves the run, so no person can reach it whatever the call says.
const mcpHandover = handover.describe(
  "Whether a person may take the browser over in the viewer, and the model may ask for one with hand_over (default true on the server's /mcp; never over stdio, where no viewer serves the run).",
)

export const BrowserTaskInputSchema = z.strictObject({
  task: task.unwrap().describe('What the browser should find out or get done, in plain words.'),
  startUrl,
  instructions,
  allowedDomains,
  maxTurns,
  maxSessionTokens,
  maxCostUsd,
  maxDurationMs,
  output,
  profile,
  handover: mcpHandover,
  proxy,
  browser,
  artifacts,
  priority,
  queueTimeoutMs,
  profileSave,
  model,
  blockPrivateNetworks,
  vision,
  subAgents,
  webhook,
})
export type BrowserTaskInput = z.infer<typeof BrowserTaskInputSchema>

export const ReplayRunInputSchema = z
  .strictObject({
    runId: z.string().trim().min(1).max(200).optional().describe('Replay the recording of this run.'),
    recording: RecordingSchema.optional().describe('Replay this recording (docs/recording.md).'),
    variables,
    startUrl,
    handover: mcpHandover,
  })
  .refine((input) => (input.runId === undefined) !== (input.recording === undefined), {
    message: 'give exactly one of "runId" and "recording"',
    path: ['runId'],
  })
export type ReplayRunInput = z.infer<typeof ReplayRunInputSchema>

export const ListRunsInputSchema = z.strictObject({
  limit: z.number().int().min(1).max(100).optional().describe('How many runs, newest first (default 20).'),
  status: z.enum(runStatuses).optional(),
})

export const GetRunInputSchema = z.strictObject({ runId: z.string().trim().min(1).max(200) })
