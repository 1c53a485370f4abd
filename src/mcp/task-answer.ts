import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'

import { DoneReasonSchema, ModelOutcomeSchema } from '../events/events.ts'

/** The structured content of browser_task and replay_run: what TaskAnswer holds. */
export const TaskAnswerSchema = z.object({
  runId: z.string(),
  success: z.boolean().describe('Whether the task was done, as the run judged it.'),
  text: z.string().describe("The run's answer, in words."),
  reason: DoneReasonSchema.describe('Why the run ended: model_stop when it finished on its own.'),
  data: z.unknown().optional().describe('The typed result, valid against `output`, when it was given.'),
  outcome: ModelOutcomeSchema.optional().describe(
    "With reason error: the provider's refusal, block or cut-off that ended the run (kind, and the provider's own reason).",
  ),
  steps: z.number().int().nonnegative(),
  costUsd: z.number().nullable().describe("USD; null when the model's price is unknown."),
  viewerUrl: z.string().optional().describe("The run's page in the viewer, when a server shows one."),
  notes: z
    .array(z.string())
    .optional()
    .describe('Confirmations and questions nobody could be asked, and what was done instead.'),
})
export type TaskAnswer = z.infer<typeof TaskAnswerSchema>

/** A finished run as a tool result: a line a person reads, and the answer as structured content. */
export function taskResult(answer: TaskAnswer): CallToolResult {
  const outcome = answer.success ? 'Done' : 'Not done'
  const lines = [
    `${outcome} (${answer.reason}${answer.outcome ? `: ${answer.outcome.kind}` : ''}, ${answer.steps} steps, run ${answer.runId}): ${answer.text}`,
    ...(answer.data === undefined ? [] : [`Data: ${JSON.stringify(answer.data)}`]),
    ...(answer.notes ?? []),
    ...(answer.viewerUrl === undefined ? [] : [`Viewer: ${answer.viewerUrl}`]),
  ]
  return {
    content: [{ type: 'text', text: lines.join('\n') }],
    structuredContent: { ...answer },
  }
}

/** A call the tool refuses before any run starts. */
export function refusal(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true }
}
