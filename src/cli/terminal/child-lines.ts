import type { AgentEvent } from '../../events/events.ts'
import { truncate } from '../../util/text.ts'

/**
 * One line for a sub-agent's event in the live view, or undefined for the
 * events too fine to show for a child (its streaming text, reflections,
 * observations). Children run at once: a line per event, each saying whose it
 * is, reads well interleaved where streamed text would not.
 */
export function childLine(event: AgentEvent): string | undefined {
  switch (event.type) {
    case 'run_started':
      return `started: ${truncate(event.task, 100)} (up to ${event.maxTurns} steps)${event.startUrl ? ` at ${event.startUrl}` : ''}`
    case 'step_started':
      return `step ${event.step} of ${event.maxTurns}`
    case 'tool_call_start':
      return `→ ${event.tool} ${truncate(JSON.stringify(event.input) ?? '', 80)}`
    case 'tool_call_result':
      return `${event.ok ? '✓' : '✗'} ${truncate(event.result.split('\n')[0] ?? '', 100)}`
    case 'confirmation_required':
      return `? ${event.tool} needs confirmation: ${event.reason}`
    case 'question':
      return `? ${event.question}`
    case 'warning':
      return `! ${event.message}`
    case 'stuck_detected':
      return `! stuck (${event.kind}): ${event.detail}`
    case 'error':
      return `error ${event.message}${event.retryable ? ' (retrying)' : ''}`
    case 'done':
      return `${event.reason === 'model_stop' && event.result.success ? '✔' : '✘'} ${event.reason} · ${event.steps} steps: ${truncate(event.result.text, 200)}`
    default:
      return undefined
  }
}

/** The prefix of a child's lines: indented under the parent's step, one level per depth, and numbered. */
export function childPrefix(event: AgentEvent): string {
  return `${'  '.repeat(1 + (event.depth ?? 1))}[${(event.childIndex ?? 0) + 1}] `
}
