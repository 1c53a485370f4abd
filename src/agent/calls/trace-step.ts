import type { AgentContext, TransitionResult } from '../run/run-context.ts'

/** A step's name in the trace is a line in its viewer's action list: long inputs are cut. */
const maxInputChars = 120

/**
 * Names the call about to run in the run's Playwright trace, when it records one: "step 2: click button
 * "Save"", so the trace viewer lists Sextant's steps with Playwright's own actions inside each. The element
 * is named as the page view showed it; the input is the call's as its event carries it (secrets redacted).
 */
export async function nameTraceStep(started: TransitionResult, ctx: AgentContext): Promise<void> {
  const artifacts = ctx.browser?.artifacts
  const start = started.effects.find((effect) => effect.type === 'tool_call_start')
  if (!artifacts || start?.type !== 'tool_call_start') return
  await artifacts.step(
    traceStepTitle(ctx.run.step, start.tool, start.input, ctx.run.lastObservation?.pageView),
  )
}

export function traceStepTitle(step: number, tool: string, input: unknown, pageView = ''): string {
  const { ref, ...rest } =
    input !== null && typeof input === 'object' ? (input as Record<string, unknown>) : {}
  const element = typeof ref === 'string' ? elementLine(pageView, ref) : undefined
  const others = Object.keys(rest).length > 0 ? JSON.stringify(rest) : ''
  const text = [element, others.length > maxInputChars ? `${others.slice(0, maxInputChars)}…` : others]
    .filter(Boolean)
    .join(' ')
  return `step ${step}: ${tool}${text ? ` ${text}` : ''}`
}

/** `button "Save"` for `- button "Save" [ref=b1x2]`; the ref itself when the view has no such line. */
function elementLine(pageView: string, ref: string): string {
  const marker = `[ref=${ref}]`
  const line = pageView.split('\n').find((row) => row.includes(marker))
  if (!line) return ref
  const described = line
    .slice(0, line.indexOf(marker))
    .replace(/^\s*-\s*/, '')
    .replace(/\s*\[[^\]]*\]\s*$/, '')
  return described.trim().slice(0, maxInputChars) || ref
}
