import type { ToolResult } from '../../tool.ts'
import type { AgentContext } from '../run/run-context.ts'

/** `done` calls with data that does not match the output schema a run accepts before it ends `error`. */
export const maxDataAttempts = 3

/** A tool result after the output check: the run ends with it, the model tries again, or the run fails. */
export type CheckedFinal =
  | { verdict: 'accepted'; result: ToolResult }
  | { verdict: 'retry'; result: ToolResult; rejectedData: number }
  | { verdict: 'failed'; result: ToolResult; rejectedData: number; message: string }

/**
 * Checks the data of a `done` against the run's output schema. With
 * `success: true` the data must match: a mismatch becomes a failed result the
 * model reads (so it can try again) until the attempts are spent. With
 * `success: false` the data may be left out, and data that does not match is
 * dropped rather than fought over: the run failed anyway.
 */
export function checkFinalData(result: ToolResult, ctx: AgentContext): CheckedFinal {
  const { final } = result
  if (!final || !ctx.output) return { verdict: 'accepted', result }
  const { data, ...rest } = final
  if (!final.success) {
    const kept = data === undefined ? undefined : ctx.output.check(data)
    const withData = kept?.ok ? { ...rest, data: kept.data } : rest
    return { verdict: 'accepted', result: { ...result, final: withData } }
  }
  const checked =
    data === undefined
      ? { ok: false as const, problems: 'data is missing; it is required when success is true' }
      : ctx.output.check(data)
  if (checked.ok)
    return { verdict: 'accepted', result: { ...result, final: { ...rest, data: checked.data } } }
  const rejectedData = ctx.run.rejectedData + 1
  const problems = checked.problems
  if (rejectedData >= maxDataAttempts) {
    const message = `The data given to done did not match the output schema after ${rejectedData} attempts: ${problems}`
    return { verdict: 'failed', result: { ok: false, text: message }, rejectedData, message }
  }
  const text =
    `The run did not end: the data does not match the output schema: ${problems}. ` +
    `Call done again with data that matches (attempt ${rejectedData} of ${maxDataAttempts}).`
  return { verdict: 'retry', result: { ok: false, text }, rejectedData }
}
