import type { z } from 'zod'
import { type Recording, RecordingSchema } from './schema.ts'
import { variablesIn, variablesInDeep } from './variables.ts'

/** Tools that act on an element: a step of theirs without a target cannot be replayed. */
const elementTools = new Set(['click', 'type', 'select_option', 'hover', 'upload_file'])

export type RecordingCheck =
  | { ok: true; recording: Recording; warnings: string[] }
  | { ok: false; problems: string[] }

/**
 * Reads a recording (a file's text, or a value already parsed) and says what
 * is wrong with it, each problem with its place (`steps.2.target.role: …`),
 * so a recording edited by hand can be fixed before a replay trips on it.
 */
export function checkRecording(source: string | unknown): RecordingCheck {
  let value: unknown = source
  if (typeof source === 'string') {
    try {
      value = JSON.parse(source)
    } catch (error) {
      return { ok: false, problems: [`not JSON: ${error instanceof Error ? error.message : String(error)}`] }
    }
  }
  const parsed = RecordingSchema.safeParse(value)
  if (!parsed.success) return { ok: false, problems: issues(parsed.error) }
  const recording = parsed.data
  const problems: string[] = []
  const warnings: string[] = []
  recording.steps.forEach((step, index) => {
    if (step.skip === undefined && elementTools.has(step.tool) && !step.target)
      problems.push(`steps.${index}: a ${step.tool} step needs a "target" (the element it acts on)`)
  })
  const defaults = recording.variables ?? {}
  const used = new Set([...variablesIn(recording.task), ...variablesInDeep(recording.steps)])
  for (const name of used)
    if (defaults[name] === undefined) warnings.push(`{{${name}}} has no default: every replay must give it`)
  for (const name of Object.keys(defaults))
    if (!used.has(name)) warnings.push(`variable "${name}" is not used by any step`)
  const live = recording.steps.filter((step) => step.skip === undefined)
  if (live.at(-1)?.tool !== 'done')
    warnings.push('the recording does not end with a done step: a replay ends without its result')
  return problems.length > 0 ? { ok: false, problems } : { ok: true, recording, warnings }
}

function issues(error: z.ZodError): string[] {
  return error.issues.map(
    (issue) => `${issue.path.length ? issue.path.join('.') : '(top level)'}: ${issue.message}`,
  )
}
