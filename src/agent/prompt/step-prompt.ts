import type { PageObservation } from '../../browser/types.ts'
import { countTokens } from '../../util/tokens.ts'
import type { RunRecord, StepRecord } from '../loop-types.ts'

/**
 * The per-step prompt, assembled fresh each step: the task, the step history
 * (compacted when long), observations, and the current page view. Only the
 * latest page view is ever included.
 */
export function buildStepPrompt(input: {
  task: string
  step: number
  maxTurns: number
  run: RunRecord
  observation?: PageObservation
}): string {
  const sections = [`<task>\n${input.task}\n</task>`]
  if (input.run.summary) {
    const summary = input.run.summary
    const tag = `summary_of_steps_1_to_${summary.throughStep}`
    sections.push(
      `<${tag}>\nProgress: ${summary.progress}\nKey data: ${summary.keyData}\n` +
        `Failed attempts: ${summary.failedAttempts}\nNext steps: ${summary.nextSteps}\n</${tag}>`,
    )
  }
  const history = input.run.history.map(formatStep).join('\n')
  sections.push(`<history>\n${history || 'No steps yet.'}\n</history>`)
  if (input.run.guidance.length > 0) {
    sections.push(
      `<guidance>\n${input.run.guidance.map((guidance) => `- ${guidance}`).join('\n')}\n</guidance>`,
    )
  }
  const notes = [...input.run.notes, ...(input.observation?.notes ?? [])]
  if (notes.length > 0)
    sections.push(`<observations>\n${notes.map((note) => `- ${note}`).join('\n')}\n</observations>`)
  sections.push(`<step>Step ${input.step} of ${input.maxTurns}.</step>`)
  sections.push(
    input.observation
      ? `<page>\n${input.observation.pageView}\n</page>`
      : '<page>No browser page is open.</page>',
  )
  return sections.join('\n\n')
}

export function formatStep(record: StepRecord): string {
  const lines = [`Step ${record.step}:`]
  if (record.output) {
    lines.push(`  evaluation: ${record.output.evaluation_previous_goal}`)
    lines.push(`  memory: ${record.output.memory}`)
    lines.push(`  goal: ${record.output.next_goal}`)
  }
  if (record.action) lines.push(`  action: ${JSON.stringify({ [record.action.tool]: record.action.input })}`)
  if (record.result) lines.push(`  result: ${record.result.ok ? '' : 'FAILED: '}${record.result.text}`)
  return lines.join('\n')
}

/** The prompt's size in o200k tokens: exact for OpenAI's current models, a close estimate for others. */
export function estimateTokens(text: string): number {
  return countTokens(text)
}
