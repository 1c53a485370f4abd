import type { ToolResult } from '../../tool.ts'
import { quote } from './normalize.ts'
import type { RecoveryPlan } from './recovery.ts'
import type { Detection } from './trace.ts'

/** What the agent and the run's result are told at each rung of the escalation. */

function patterns(detections: Detection[]): string {
  return detections.map((detection) => detection.detail).join(' Also: ')
}

export function stuckNote(detections: Detection[]): string {
  return (
    `You appear to be stuck. ${patterns(detections)} ` +
    'Doing the same again will not work. Look at the page view afresh and change approach: another element ' +
    '(check it is enabled and not covered by a dialog), another route to the goal (search, a link, a direct URL), ' +
    'or scroll or use find for what you need. If the task cannot be done, call done with success false and say what blocked you.'
  )
}

export function recoveryNote(plan: RecoveryPlan, result: ToolResult, detections: Detection[]): string {
  const outcome = result.ok ? `result: ${quote(result.text)}` : `it failed: ${quote(result.text)}`
  return (
    `You are still stuck: ${patterns(detections)} To help, the runtime tried to ${plan.description} (${outcome}). ` +
    'The page view below is the page now. Do not repeat what did not work; choose a different action.'
  )
}

export function supervisorFailedNote(detections: Detection[]): string {
  return `${stuckNote(detections)} The run will stop soon if nothing changes.`
}

export function guidanceNote(approach: string): string {
  return `A supervisor reviewed your run and proposes a new approach, which you should follow now: ${approach}`
}

export function reminderNote(detections: Detection[], approach: string | undefined): string {
  const follow = approach ? ` Follow the supervisor's approach: ${approach}` : ''
  return `You are still stuck: ${patterns(detections)}${follow} If nothing changes, the run stops.`
}

export function errorBudgetWarning(failed: number, budget: number): string {
  return `${failed} of your actions have failed; the run stops after ${budget}. Before acting, check that the element exists, is enabled and is on screen.`
}

export function endText(input: {
  detections: Detection[]
  since: number | undefined
  tried: string[]
  why: string
}): string {
  const since = input.since !== undefined ? ` since step ${input.since}` : ''
  const kinds = [...new Set(input.detections.map((detection) => detection.kind))].join(', ')
  const tried = input.tried.length > 0 ? ` Tried: ${input.tried.join('; ')}.` : ''
  return `Stopped: the agent was stuck (${kinds})${since}. ${input.why}${tried} Last pattern: ${patterns(input.detections)}`
}
