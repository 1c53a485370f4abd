import { RunSecrets, SecretsError, type SecretsInput } from '../secrets/secrets.ts'
import type { Suite } from './suite.ts'

/**
 * Where an eval's secret values come from. A suite file names environment
 * variables (`secrets: { name: VARIABLE }`), which only the CLI reads: the
 * environment is that of the person running it. Over HTTP the environment
 * would be the server's (its API keys, its token, its database URL), so a
 * request gives values instead, and a suite that names a variable is refused.
 * runEval itself never reads an environment: it is handed values per task.
 */

/** Each task's secret values, by task id (tasks without secrets are absent). */
export type TaskSecrets = Record<string, SecretsInput>

/** The CLI's secrets: each task's variables read from `env` (unset ones are refused first, see missingSecrets). */
export function secretsFromEnvironment(suite: Suite, env: NodeJS.ProcessEnv): TaskSecrets {
  const secrets: TaskSecrets = {}
  for (const task of suite.tasks) {
    if (task.secrets === undefined) continue
    secrets[task.id] = Object.fromEntries(
      Object.entries(task.secrets).map(([name, variable]) => [name, env[variable] ?? '']),
    )
  }
  return secrets
}

/** Secrets the suite names whose environment variable is unset. */
export function missingSecrets(suite: Suite, env: NodeJS.ProcessEnv): string[] {
  return suite.tasks.flatMap((task) =>
    Object.entries(task.secrets ?? {})
      .filter(([, variable]) => !env[variable])
      .map(
        ([name, variable]) => `task ${task.id}: secret "${name}" needs the environment variable ${variable}`,
      ),
  )
}

/** An eval request's secrets: `secrets` for every task, `taskSecrets[id]` over them for one. */
export interface RequestSecrets {
  secrets?: SecretsInput
  taskSecrets?: Record<string, SecretsInput>
}

/**
 * The secrets of an eval posted over HTTP, by task id, or the problems that
 * make it a 400: a suite task naming an environment variable, a task id in
 * `taskSecrets` the suite lacks, secrets that are not valid once merged.
 */
export function secretsFromRequest(
  suite: Suite,
  request: RequestSecrets,
): { ok: true; secrets: TaskSecrets } | { ok: false; problems: string[] } {
  const problems: string[] = []
  for (const task of suite.tasks) {
    for (const [name, variable] of Object.entries(task.secrets ?? {})) {
      problems.push(
        `task ${task.id}: secret "${name}" names the environment variable ${variable}; an eval over HTTP never reads the server's environment: give the value in the request's "secrets" (or "taskSecrets.${task.id}")`,
      )
    }
  }
  const ids = new Set(suite.tasks.map((task) => task.id))
  for (const id of Object.keys(request.taskSecrets ?? {})) {
    if (!ids.has(id)) problems.push(`taskSecrets.${id}: the suite has no task "${id}"`)
  }
  if (problems.length > 0) return { ok: false, problems }
  const secrets: TaskSecrets = {}
  for (const task of suite.tasks) {
    const merged = { ...request.secrets, ...request.taskSecrets?.[task.id] }
    if (Object.keys(merged).length === 0) continue
    try {
      RunSecrets.from(merged)
    } catch (error) {
      if (!(error instanceof SecretsError)) throw error
      problems.push(`task ${task.id}: ${error.message}`)
    }
    secrets[task.id] = merged
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, secrets }
}
