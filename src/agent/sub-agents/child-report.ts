import { quoteText, truncate } from '../../util/text.ts'
import type { ChildOutcome } from '../run/run-state.ts'

/** Characters of one child's answer kept in the parent's tool result. */
const maxAnswerChars = 2_000

/** The dispatch's tool result: each child's task and its `done` (reason, success, text), in task order. */
export function reportChildren(outcomes: ChildOutcome[]): string {
  const lines = outcomes.map(({ spec, summary }) => {
    const how = `${summary.reason}, success: ${summary.result.success}, ${summary.steps} steps`
    return `${spec.index + 1}. ${quoteText(spec.task)} (${how}): ${truncate(summary.result.text, maxAnswerChars)}`
  })
  const failed = outcomes.filter(({ summary }) => !summary.result.success).length
  const head =
    failed === 0
      ? `All ${outcomes.length} sub-agents finished.`
      : `${outcomes.length - failed} of ${outcomes.length} sub-agents succeeded; ${failed} did not.`
  return [head, ...lines].join('\n')
}
