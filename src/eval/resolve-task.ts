import { RunLimitError, refuseUnkeepableLimits } from '../agent/run/run-limits.ts'
import type { RunRequest } from '../agent/run/run-request-fields.ts'
import { findPrice, loadPriceTable, type PriceTable } from '../model/prices.ts'
import type { Suite, SuiteTask } from './suite.ts'

/** Suite defaults under the task's own settings; `{{fixtures}}` and `{{variables}}` filled in. */
export function resolveTask(task: SuiteTask, suite: Suite, fixturesUrl: string | undefined): SuiteTask {
  const values: Record<string, string> = { ...task.variables }
  if (fixturesUrl !== undefined) values.fixtures = fixturesUrl
  const fill = (text: string) =>
    text.replaceAll(/\{\{(\w+)\}\}/g, (match, name: string) => values[name] ?? match)
  const check = Object.fromEntries(
    Object.entries(task.check).map(([key, value]) => [
      key,
      Array.isArray(value) ? value.map(fill) : typeof value === 'string' ? fill(value) : value,
    ]),
  ) as SuiteTask['check']
  const allowedDomains = task.allowedDomains ?? suite.defaults?.allowedDomains
  const maxTurns = task.maxTurns ?? suite.defaults?.maxTurns
  const maxSessionTokens = task.maxSessionTokens ?? suite.defaults?.maxSessionTokens
  const maxCostUsd = task.maxCostUsd ?? suite.defaults?.maxCostUsd
  const maxDurationMs = task.maxDurationMs ?? suite.defaults?.maxDurationMs
  const profile = task.profile ?? suite.defaults?.profile
  const profileSave = task.profileSave ?? suite.defaults?.profileSave
  const proxy = task.proxy ?? suite.defaults?.proxy
  const webhook = task.webhook ?? suite.defaults?.webhook
  const instructions = task.instructions ?? suite.defaults?.instructions
  const browser = task.browser ?? suite.defaults?.browser
  const artifacts = task.artifacts ?? suite.defaults?.artifacts
  return {
    ...task,
    task: fill(task.task),
    startUrl: fill(task.startUrl),
    check,
    ...(allowedDomains === undefined ? {} : { allowedDomains: allowedDomains.map(fill) }),
    ...(maxTurns === undefined ? {} : { maxTurns }),
    ...(maxSessionTokens === undefined ? {} : { maxSessionTokens }),
    ...(maxCostUsd === undefined ? {} : { maxCostUsd }),
    ...(maxDurationMs === undefined ? {} : { maxDurationMs }),
    ...(profile === undefined ? {} : { profile }),
    ...(profileSave === undefined ? {} : { profileSave }),
    ...(proxy === undefined ? {} : { proxy }),
    ...(webhook === undefined ? {} : { webhook }),
    ...(instructions === undefined ? {} : { instructions: fill(instructions) }),
    ...(browser === undefined ? {} : { browser }),
    ...(artifacts === undefined ? {} : { artifacts }),
  }
}

/**
 * The run request a resolved task makes: the suite's view of the run request
 * (its `secrets` name environment variables, so the caller adds their values;
 * its `variables` are filled in by resolveTask, not by the run).
 */
export function taskRequest(task: SuiteTask): RunRequest {
  const { id, check, secrets, variables, ...request } = task
  return request
}

/** Placeholders left in a suite after filling: `{{fixtures}}` without --serve-fixtures, an unknown variable. */
export function unfilledPlaceholders(suite: Suite, fixturesUrl: string | undefined): string[] {
  const problems: string[] = []
  for (const task of suite.tasks) {
    const resolved = resolveTask(task, suite, fixturesUrl)
    const texts = [resolved.task, resolved.startUrl, ...(resolved.allowedDomains ?? [])]
    for (const match of texts.join('\n').matchAll(/\{\{(\w+)\}\}/g)) {
      problems.push(
        match[1] === 'fixtures'
          ? `task ${task.id} uses {{fixtures}}: run with --serve-fixtures (the suite's "fixtures" folder)`
          : `task ${task.id} uses {{${match[1]}}}, which is not in its variables`,
      )
    }
  }
  return [...new Set(problems)]
}

/**
 * Tasks whose dollar cap a model cannot keep (it has no price, so its cost
 * cannot be counted), one problem each: refused before any run starts, as a
 * run of its own would be.
 */
export function unkeepableLimits(
  suite: Suite,
  models: readonly { name: string }[],
  prices: PriceTable = loadPriceTable(),
): string[] {
  const problems: string[] = []
  for (const model of models) {
    for (const task of suite.tasks) {
      const maxCostUsd = task.maxCostUsd ?? suite.defaults?.maxCostUsd
      try {
        refuseUnkeepableLimits({ maxCostUsd }, model.name, findPrice(model.name, prices))
      } catch (error) {
        if (!(error instanceof RunLimitError)) throw error
        problems.push(`task ${task.id}: ${error.message}`)
      }
    }
  }
  return problems
}
