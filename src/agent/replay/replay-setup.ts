import { type ContextSettings, ContextSettingsSchema } from '../../browser/session/context-settings.ts'
import type { Recording } from '../../recording/schema.ts'
import { fillTemplate, variablesIn, variablesInDeep } from '../../recording/variables.ts'
import type { RunSecrets } from '../../secrets/secrets.ts'
import type { ReplayProgress } from '../run/run-context.ts'

/** A recording that cannot be replayed as asked: a missing variable. Thrown before the run starts. */
export class ReplayError extends Error {
  override name = 'ReplayError'
}

export interface PreparedRun {
  /** The task as the model reads it: templates filled. */
  task: string
  /** The task as recorded and shown (`run_started.task`): templates kept. */
  template: string
  startUrl: string | undefined
  variables: Record<string, string>
  /** The caller's instructions for the run, else the recording's. */
  instructions?: string
  /** The browser context the caller asked for, else the recording's (its headers are never recorded). */
  browserContext?: ContextSettings
  replay?: ReplayProgress
}

/**
 * A run its caller settled before starting it (the server's plan): what
 * prepareRun made of the very options the run gets, and their secrets, read
 * once. runAgent uses them instead of settling them again.
 */
export interface SettledRun {
  prepared: PreparedRun
  secrets: RunSecrets
}

/**
 * The task, start URL and variables of a run, and its replay when it has
 * one. Every `{{name}}` a replay needs must have a value: one that has none
 * stops the run before it starts, naming it.
 */
export function prepareRun(options: {
  task?: string | undefined
  startUrl?: string | undefined
  variables?: Record<string, string> | undefined
  instructions?: string | undefined
  browserContext?: ContextSettings | undefined
  replay?: Recording | undefined
  canHeal: boolean
}): PreparedRun {
  const recording = options.replay
  const template = options.task ?? recording?.task ?? ''
  const variables = { ...recording?.variables, ...options.variables }
  const startUrl = options.startUrl ?? recording?.startUrl
  const instructions = options.instructions ?? recording?.instructions
  const browserContext = options.browserContext ?? recordedContextOf(recording)
  const given = {
    ...(instructions === undefined ? {} : { instructions }),
    ...(browserContext === undefined ? {} : { browserContext }),
  }
  if (!recording) return { task: fillTemplate(template, variables), template, startUrl, variables, ...given }

  const needed = new Set([...variablesIn(template), ...variablesInDeep(recording.steps)])
  const missing = [...needed].filter((name) => variables[name] === undefined)
  if (missing.length > 0) {
    throw new ReplayError(
      `The recording needs a value for ${missing.map((name) => `{{${name}}}`).join(', ')}: give it as a variable (--var ${missing[0]}=…, or "variables" in the request).`,
    )
  }
  return {
    task: fillTemplate(template, variables),
    template,
    startUrl,
    variables,
    ...given,
    replay: {
      steps: recording.steps,
      values: variables,
      rebase: rebaser(recording.startUrl, startUrl),
      next: 0,
      canHeal: options.canHeal,
      stats: { replayed: 0, healed: 0, modelSteps: 0 },
    },
  }
}

/** A recording's browser context, held to the rules a request's is (a recording may be written by hand). */
function recordedContextOf(recording: Recording | undefined): ContextSettings | undefined {
  if (recording?.browser === undefined) return undefined
  const parsed = ContextSettingsSchema.safeParse(recording.browser)
  if (parsed.success) return parsed.data
  const problems = parsed.error.issues.map((issue) => `browser.${issue.path.join('.')}: ${issue.message}`)
  throw new ReplayError(`The recording's browser context is not valid: ${problems.join('; ')}.`)
}

/** Recorded URLs on the recorded start's origin move to the replay's start origin (a fresh app on another port). */
function rebaser(recorded: string | undefined, now: string | undefined): (url: string) => string {
  const from = originOf(recorded)
  const to = originOf(now)
  if (!from || !to || from === to) return (url) => url
  return (url) => (url === from || url.startsWith(`${from}/`) ? `${to}${url.slice(from.length)}` : url)
}

function originOf(url: string | undefined): string | undefined {
  if (!url) return undefined
  try {
    const origin = new URL(url).origin
    return origin === 'null' ? undefined : origin
  } catch {
    return undefined
  }
}
