import { generateText, type LanguageModel, Output } from 'ai'
import { z } from 'zod'
import type { PageObservation } from '../../browser/browser-session.ts'
import type { Usage } from '../../events/events.ts'
import { toUsage } from '../../events/usage.ts'
import { truncate } from '../../util/text.ts'
import type { StepRecord } from '../run/step-record.ts'
import { describeAction } from './normalize.ts'
import type { Detection } from './trace.ts'

/**
 * The supervisor: a separate model call, with the whole history, made when the
 * recovery strategies have not freed the agent. It either stops the run with
 * a reason, or gives the agent a new approach.
 */

// One flat object rather than a union: providers' strict JSON-schema modes accept only an object at the root.
export const SupervisorDecisionSchema = z.object({
  decision: z
    .enum(['abort', 'new_approach'])
    .describe(
      'abort: the task cannot be finished from here; new_approach: a concrete different way to proceed.',
    ),
  reason: z.string().describe('Why the agent is stuck, in one or two sentences.'),
  approach: z
    .string()
    .describe(
      'For new_approach: the concrete steps to take instead, addressed to the agent. Empty when aborting.',
    ),
})

export type SupervisorAnswer =
  | { decision: 'abort'; reason: string }
  | { decision: 'new_approach'; reason: string; approach: string }

export interface SupervisorRequest {
  model: LanguageModel
  task: string
  step: number
  maxTurns: number
  history: StepRecord[]
  observation: PageObservation
  detections: Detection[]
  /** What was already tried to free the agent, in order. */
  tried: string[]
  signal: AbortSignal
  pageViewChars: number
  resultChars: number
}

export const supervisorInstructions = `You supervise a browser agent that operates a web page one action at a time to finish a task.
The agent is stuck in a loop: it keeps doing things that change nothing or that bring it back where it was.
Automatic recoveries (scrolling to the top, pressing Escape, reloading, returning to an earlier page) have not freed it.

Read the task, the agent's whole history and the current page, then decide:
- "new_approach": there is a different way to reach the goal. Describe it concretely for the agent: which elements
  or pages to use instead, what to stop doing, what to check first. Do not repeat what already failed.
- "abort": the task cannot be completed from here (the site blocks it, the information does not exist, it needs
  something the agent does not have such as a login or a human check), or nothing different is left to try.

Be specific and brief. The agent sees elements as lines like \`- button "Save" [ref=b7xk]\` and acts on them by ref.`

function reflection(output: unknown): { next_goal?: string; evaluation_previous_goal?: string } {
  if (output === null || typeof output !== 'object') return {}
  const record = output as Record<string, unknown>
  const text = (value: unknown) =>
    typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined
  return {
    next_goal: text(record.next_goal),
    evaluation_previous_goal: text(record.evaluation_previous_goal),
  }
}

/** The page view cut to `maxChars`, saying how much was left out. */
function clip(text: string, maxChars: number): string {
  const marker = `\n… (${text.length - maxChars} more characters)`
  // The marker is not counted in maxChars: the model sees maxChars of the page, as configured.
  return truncate(text, maxChars + marker.length, marker)
}

export function supervisorPrompt(request: SupervisorRequest): string {
  const steps = request.history.map((record) => {
    const { next_goal, evaluation_previous_goal } = reflection(record.output)
    const lines = [`Step ${record.step} on ${record.url}`]
    if (evaluation_previous_goal) lines.push(`  evaluation: ${evaluation_previous_goal}`)
    if (next_goal) lines.push(`  goal: ${next_goal}`)
    if (record.action) lines.push(`  action: ${describeAction(record.action, 300)}`)
    if (record.result) {
      const text = record.result.text.replace(/\s+/g, ' ').trim()
      // Not counted in resultChars: the model sees resultChars of the result, as configured.
      const result = truncate(text, request.resultChars + 1)
      lines.push(`  result (${record.result.ok ? 'ok' : 'failed'}): ${result}`)
    }
    return lines.join('\n')
  })
  return [
    `## Task\n${request.task}`,
    `## Progress\nStep ${request.step} of at most ${request.maxTurns}.`,
    `## Why the agent is considered stuck\n${request.detections.map((detection) => `- ${detection.kind}: ${detection.detail}`).join('\n')}`,
    `## Already tried to free it\n${request.tried.length > 0 ? request.tried.map((entry) => `- ${entry}`).join('\n') : '- nothing yet'}`,
    `## History (oldest first${request.history[0] && request.history[0].step > 1 ? '; earlier steps were summarized away' : ''})\n${steps.join('\n') || '(no steps)'}`,
    `## Current page\n${clip(request.observation.pageView, request.pageViewChars)}`,
  ].join('\n\n')
}

/** Asks the supervisor. Throws when the call fails or its answer does not fit the schema. */
export async function consultSupervisor(
  request: SupervisorRequest,
): Promise<{ answer: SupervisorAnswer; usage: Usage }> {
  const result = await generateText({
    model: request.model,
    instructions: supervisorInstructions,
    prompt: supervisorPrompt(request),
    output: Output.object({ schema: SupervisorDecisionSchema }),
    abortSignal: request.signal,
  })
  const { decision, reason, approach } = result.output
  const usage = toUsage(result.usage)
  if (decision === 'abort') return { answer: { decision, reason: reason.trim() }, usage }
  // A new approach without content is still usable when the reason says what to do differently.
  const text = approach.trim() || reason.trim()
  if (text === '') throw new Error('The supervisor chose a new approach but did not describe it.')
  return { answer: { decision, reason: reason.trim(), approach: text }, usage }
}
