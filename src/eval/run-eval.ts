import type { LanguageModel } from 'ai'
import type { RunOptions, RunSummary } from '../agent/run-options.ts'
import type { BrowserSessionFactory } from '../browser/browser-session.ts'
import type { EvalEvent, EvalReport, EvalRun, EvalTask } from '../events/eval-events.ts'
import type { AgentEvent, AgentEventOf } from '../events/events.ts'
import { newRunId } from '../events/run-id.ts'
import { addCost } from '../events/usage.ts'
import { type Logger, silentLogger } from '../log.ts'
import type { PriceTable } from '../model/prices.ts'
import type { RunStore } from '../store/run-store.ts'
import { expressionsOf, failedChecks, readsPage } from './checks.ts'
import { runRecorder } from './eval-recorder.ts'
import { buildReport } from './eval-report.ts'
import { EventQueue } from './event-queue.ts'
import { probingSessions } from './final-page.ts'
import type { Suite, SuiteTask } from './suite.ts'

export type RunAgentFunction = (options: RunOptions) => AsyncGenerator<AgentEvent, RunSummary>

export interface EvalModel {
  /** "provider/model", as reported. */
  name: string
  model: LanguageModel
}

export interface EvalOptions {
  suite: Suite
  /** The report's suite name when the suite has none (e.g. its file name). */
  suiteLabel?: string
  /** Each model runs the whole suite; results side by side. */
  models: EvalModel[]
  /** Runs per task and model (default 1): pass@1 and pass^K. */
  repeat?: number
  /** Runs at once (default 1). They share `browser`. */
  concurrency?: number
  /** Opens each run's browser: one pool for the whole eval. */
  browser: BrowserSessionFactory
  /** Replaces `{{fixtures}}` in start URLs, tasks, allowed domains and checks. */
  fixturesUrl?: string
  prices?: PriceTable
  signal?: AbortSignal
  /** Records every run and its events (so `sextant runs show <runId>` opens it). */
  store?: RunStore
  /** The agent (default: runAgent). */
  runAgent?: RunAgentFunction
  log?: Logger
  now?: () => number
  evalId?: string
  /** Where a task's `secrets` (name → environment variable) are read (default: the process's). */
  env?: NodeJS.ProcessEnv
}

/** What `runEval` yields: the runs' own events, and the eval's. */
export type EvalStreamEvent = AgentEvent | EvalEvent

interface Job {
  task: SuiteTask
  model: EvalModel
  attempt: number
}

/**
 * Runs a suite: every task, for every model, `repeat` times, at most
 * `concurrency` at once in one browser pool. Yields each run's events and
 * `eval_*` events (progress after each run), and returns the report. A run
 * passes only when its checks hold; the model's own verdict is kept beside.
 */
export async function* runEval(options: EvalOptions): AsyncGenerator<EvalStreamEvent, EvalReport, undefined> {
  const now = options.now ?? Date.now
  const log = options.log ?? silentLogger()
  const evalId = options.evalId ?? newRunId(now()).replace(/^run_/, 'eval_')
  const repeat = options.repeat ?? 1
  const concurrency = Math.max(1, options.concurrency ?? 1)
  const runAgent = options.runAgent ?? (await import('../agent/loop.ts')).runAgent
  const startedAt = now()
  const at = () => new Date(now()).toISOString()
  const suiteName = options.suite.name ?? options.suiteLabel ?? 'suite'
  const tasks = options.suite.tasks.map((task) => resolveTask(task, options.suite, options.fixturesUrl))
  const jobs: Job[] = options.models.flatMap((model) =>
    tasks.flatMap((task) => Array.from({ length: repeat }, (_, i) => ({ task, model, attempt: i + 1 }))),
  )
  const recorder = options.store ? runRecorder(options.store, log) : undefined
  const results = new Map<string, EvalRun[]>()
  const queue = new EventQueue<EvalStreamEvent>()
  let finished = 0
  let passing = 0
  const tokens = { input: 0, output: 0, cached: 0 }
  let costUsd: number | null = 0

  yield {
    type: 'eval_started',
    evalId,
    at: at(),
    suite: suiteName,
    models: options.models.map((model) => model.name),
    tasks: tasks.map((task) => task.id),
    repeat,
    total: jobs.length,
    concurrency,
  }

  const runJob = async (job: Job): Promise<void> => {
    const { task, model, attempt } = job
    const runId = newRunId(now())
    queue.push({
      type: 'eval_run_started',
      evalId,
      at: at(),
      taskId: task.id,
      model: model.name,
      attempt,
      runId,
    })
    const probe = readsPage(task.check)
      ? probingSessions(options.browser, expressionsOf(task.check))
      : undefined
    const startUrl = task.startUrl
    let done: AgentEventOf<'done'> | undefined
    const started = now()
    try {
      for await (const event of runAgent({
        task: task.task,
        model: model.model,
        modelName: model.name,
        runId,
        startUrl,
        ...(task.maxTurns === undefined ? {} : { maxTurns: task.maxTurns }),
        ...(task.maxSessionTokens === undefined ? {} : { maxSessionTokens: task.maxSessionTokens }),
        ...(task.allowedDomains === undefined ? {} : { allowedDomains: task.allowedDomains }),
        ...(task.output === undefined ? {} : { output: task.output }),
        ...(task.secrets === undefined
          ? {}
          : { secrets: secretValues(task.secrets, options.env ?? process.env) }),
        browser: probe?.factory ?? options.browser,
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.prices ? { prices: options.prices } : {}),
        log: log.child({ runId, taskId: task.id }),
      })) {
        recorder?.record(event, { task: task.task, startUrl })
        if (event.type === 'done') done = event
        queue.push(event)
      }
    } catch (error) {
      log.error({ err: error, runId }, 'an eval run failed')
    }
    const failed = done
      ? failedChecks(task.check, done.result, probe?.finalPage())
      : ['the run ended without a done event']
    const run: EvalRun = {
      runId,
      attempt,
      passed: failed.length === 0,
      modelSuccess: done?.result.success ?? false,
      reason: done?.reason ?? 'error',
      resultText: done?.result.text ?? '',
      ...(done?.result.data === undefined ? {} : { data: done.result.data }),
      steps: done?.steps ?? 0,
      tokens: {
        input: done?.usage.inputTokens ?? 0,
        output: done?.usage.outputTokens ?? 0,
        cached: done?.usage.cachedInputTokens ?? 0,
      },
      costUsd: done ? (done.costUsd ?? null) : null,
      durationMs: done?.durationMs ?? now() - started,
      failedChecks: failed,
    }
    const key = `${model.name}\u0000${task.id}`
    results.set(key, [...(results.get(key) ?? []), run])
    finished++
    if (run.passed) passing++
    tokens.input += run.tokens.input
    tokens.output += run.tokens.output
    tokens.cached += run.tokens.cached
    costUsd = addCost(costUsd, run.costUsd)
    queue.push({ type: 'eval_run_finished', evalId, at: at(), taskId: task.id, model: model.name, run })
    const elapsedMs = now() - startedAt
    queue.push({
      type: 'eval_progress',
      evalId,
      at: at(),
      done: finished,
      total: jobs.length,
      passing,
      tokens: { ...tokens },
      costUsd,
      elapsedMs,
      ...(finished > 0 ? { etaMs: Math.round((elapsedMs / finished) * (jobs.length - finished)) } : {}),
    })
  }

  // `concurrency` workers take jobs in order; an abort stops new runs from starting.
  let next = 0
  const worker = async () => {
    while (next < jobs.length && !options.signal?.aborted) {
      const job = jobs[next++]
      if (job) await runJob(job)
    }
  }
  const workers = Promise.all(Array.from({ length: Math.min(concurrency, jobs.length) }, worker)).finally(
    () => queue.end(),
  )
  yield* queue.drain()
  await workers
  await recorder?.flush()

  const taskResults: EvalTask[] = options.models.flatMap((model) =>
    tasks.map((task) => {
      const runs = (results.get(`${model.name}\u0000${task.id}`) ?? []).sort((a, b) => a.attempt - b.attempt)
      return {
        id: task.id,
        model: model.name,
        passed: runs.filter((run) => run.passed).length,
        total: runs.length,
        runs,
      }
    }),
  )
  const report = buildReport({
    suite: suiteName,
    startedAt: new Date(startedAt).toISOString(),
    finishedAt: at(),
    models: options.models.map((model) => model.name),
    repeat,
    tasks: taskResults,
  })
  yield { type: 'eval_finished', evalId, at: at(), report }
  return report
}

/** Suite defaults under the task's own settings; `{{fixtures}}` and `{{variables}}` filled in. */
function resolveTask(task: SuiteTask, suite: Suite, fixturesUrl: string | undefined): SuiteTask {
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
  return {
    ...task,
    task: fill(task.task),
    startUrl: fill(task.startUrl),
    check,
    ...(allowedDomains === undefined ? {} : { allowedDomains: allowedDomains.map(fill) }),
    ...(maxTurns === undefined ? {} : { maxTurns }),
    ...(maxSessionTokens === undefined ? {} : { maxSessionTokens }),
  }
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

/** A task's secrets (name → environment variable) with their values; unset ones were refused before the eval began. */
function secretValues(secrets: Record<string, string>, env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(secrets).map(([name, variable]) => [name, env[variable] ?? '']))
}

/** Secrets the suite names whose environment variable is unset. */
export function missingSecrets(suite: Suite, env: NodeJS.ProcessEnv = process.env): string[] {
  return suite.tasks.flatMap((task) =>
    Object.entries(task.secrets ?? {})
      .filter(([, variable]) => !env[variable])
      .map(
        ([name, variable]) => `task ${task.id}: secret "${name}" needs the environment variable ${variable}`,
      ),
  )
}
