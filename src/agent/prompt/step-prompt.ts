import type { PageObservation } from '../../browser/browser-session.ts'
import { countTokens } from '../../util/tokens.ts'
import type { RunRecord } from '../run/run-context.ts'
import type { StepRecord } from '../run/step-record.ts'
import { pageLogLine } from './page-log-line.ts'

interface StepPromptInput {
  task: string
  step: number
  maxTurns: number
  run: RunRecord
  observation?: PageObservation
}

/**
 * The per-step prompt, split for the provider's prompt cache: `stable` is what
 * the next step's prompt starts with byte for byte (the task, the summary,
 * one part per finished step of the history), `volatile` what changes every
 * step (guidance, observations, the step counter, the page view), last.
 * Joined, the parts are the prompt the model reads.
 */
export function buildStepPromptParts(input: StepPromptInput): { stable: string[]; volatile: string } {
  let head = `<task>\n${input.task}\n</task>\n\n`
  if (input.run.summary) {
    const summary = input.run.summary
    const tag = `summary_of_steps_1_to_${summary.throughStep}`
    head +=
      `<${tag}>\nProgress: ${summary.progress}\nKey data: ${summary.keyData}\n` +
      `Failed attempts: ${summary.failedAttempts}\nNext steps: ${summary.nextSteps}\n</${tag}>\n\n`
  }
  // `</history>` is volatile: it moves down as steps are added.
  const stable = [`${head}<history>\n`, ...input.run.history.map((record) => `${formatStep(record)}\n`)]
  const sections = [`${input.run.history.length === 0 ? 'No steps yet.\n' : ''}</history>`]
  if (input.run.guidance.length > 0) {
    sections.push(
      `<guidance>\n${input.run.guidance.map((guidance) => `- ${guidance}`).join('\n')}\n</guidance>`,
    )
  }
  const logged = input.observation?.pageLog && pageLogLine(input.observation.pageLog)
  const notes = [...input.run.notes, ...(input.observation?.notes ?? []), ...(logged ? [logged] : [])]
  if (notes.length > 0)
    sections.push(`<observations>\n${notes.map((note) => `- ${note}`).join('\n')}\n</observations>`)
  sections.push(`<step>Step ${input.step} of ${input.maxTurns}.</step>`)
  sections.push(
    input.observation
      ? `<page>\n${input.observation.pageView}\n</page>`
      : '<page>No browser page is open.</page>',
  )
  return { stable, volatile: sections.join('\n\n') }
}

/** The per-step prompt as one text (for token estimates). */
export function buildStepPrompt(input: StepPromptInput): string {
  const { stable, volatile } = buildStepPromptParts(input)
  return stable.join('') + volatile
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
