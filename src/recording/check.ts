import type { z } from 'zod'
import type { ActionRegistry } from './action-descriptor.ts'
import { type Recording, RecordingSchema } from './schema.ts'
import { variablesIn, variablesInDeep } from './variables.ts'

export type RecordingCheck =
  | { ok: true; recording: Recording; warnings: string[] }
  | { ok: false; problems: string[] }

/**
 * Reads a recording (a file's text, or a value already parsed) and says what
 * is wrong with it, each problem with its place (`steps.2.target.role: …`),
 * so a recording edited by hand can be fixed before a replay trips on it.
 * A step of an action that needs an element (its descriptor says) needs a target.
 */
export function checkRecordingWith(source: string | unknown, actions: ActionRegistry): RecordingCheck {
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
    const needsElement = actions.get(step.tool)?.record.element === 'required'
    if (step.skip === undefined && needsElement && !step.target)
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
