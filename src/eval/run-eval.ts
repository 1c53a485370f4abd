import type { Tracer } from '@opentelemetry/api'
import type { LanguageModel } from 'ai'
import type { RunProfiles } from '../agent/run/profile-save.ts'
import type { RunOptions, RunSummary } from '../agent/run/run-options.ts'
import { runOptionsFor } from '../agent/run/run-request.ts'
import type { BrowserSessionFactory } from '../browser/browser-session.ts'
import { proxyCredentials } from '../browser/network/upstream-proxy.ts'
import { contextCredentials } from '../browser/session/context-settings.ts'
import type { EvalEvent, EvalReport, EvalRun, EvalTask } from '../events/eval-events.ts'
import type { AgentEvent, AgentEventOf } from '../events/events.ts'
import { newRunId } from '../events/run-id.ts'
import { addCost } from '../events/usage.ts'
import { type Logger, scrubbingLogger, silentLogger } from '../log.ts'
import type { PriceTable } from '../model/prices.ts'
import { RunSecrets } from '../secrets/secrets.ts'
import type { RunStore } from '../store/run-store.ts'
import type { ArtifactStore } from '../util/run-downloads.ts'
import { WebhookSecretMissingError, type WebhookSigning } from '../webhooks/run-webhook.ts'
import { expressionsOf, failedChecks, readsPage } from './checks.ts'
import { runRecorder } from './eval-recorder.ts'
import { buildReport } from './eval-report.ts'
import type { TaskSecrets } from './eval-secrets.ts'
import { EventQueue } from './event-queue.ts'
import { probingSessions } from './final-page.ts'
import { resolveTask, taskRequest } from './resolve-task.ts'
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
  /**
   * Admission by a server: one slot per run at once (they replace
   * `concurrency`), each given back when the worker holding it has no more
   * runs, however the eval ends.
   */
  slots?: { release(): void }[]
  /** Called with each run's events as they happen, whoever reads the stream (a server's metrics). */
  observe?: (event: AgentEvent) => void
  /** Opens each run's browser: one pool for the whole eval. */
  browser: BrowserSessionFactory
  /** Replaces `{{fixtures}}` in start URLs, tasks, allowed domains and checks. */
  fixturesUrl?: string
  prices?: PriceTable
  signal?: AbortSignal
  /** Records every run and its events (so `sextant runs show <runId>` opens it). */
  store?: RunStore
  /** Where the tasks' profiles are kept; a task naming a profile needs it. */
  profiles?: RunProfiles
  /** The agent (default: runAgent). */
  runAgent?: RunAgentFunction
  /** Traces each run, a trace of its own (the CLI's or server's OTEL_*); default: runAgent's, the global tracer. */
  tracer?: Tracer
  log?: Logger
  now?: () => number
  evalId?: string
  /** Each task's secret values by task id (eval-secrets.ts): runEval reads no environment. */
  secrets?: TaskSecrets
  /** Where the runs' artifacts are kept and their bound (the CLI's runs folder, the server's store); a task asking for some needs it. */
  artifacts?: { store: ArtifactStore; maxBytes: number }
  /** How tasks' webhooks are signed and bounded (the server's or CLI's SEXTANT_WEBHOOK_*); a task naming one needs it. */
  webhooks?: WebhookSigning
}

/** EvalRun fields that hold fixed words or ids, never data: not scrubbed (a short secret must not break them). */
const evalRunVocabulary: ReadonlySet<string> = new Set(['runId', 'reason'])

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
 * passes only when its checks hold and it ended `model_stop`; the model's own
 * verdict and the reason are kept beside.
 */
export async function* runEval(options: EvalOptions): AsyncGenerator<EvalStreamEvent, EvalReport, undefined> {
  const slots = options.slots ?? []
  const handed = { count: 0 }
  try {
    return yield* evalRuns(options, slots, handed)
  } finally {
    // Slots never handed to a worker (fewer jobs than slots, an eval stopped early) are given back here;
    // a worker gives back its own once its last run has ended, which may be after this.
    for (const slot of slots.slice(handed.count)) slot.release()
  }
}

async function* evalRuns(
  options: EvalOptions,
  slots: { release(): void }[],
  handed: { count: number },
): AsyncGenerator<EvalStreamEvent, EvalReport, undefined> {
  const now = options.now ?? Date.now
  const log = options.log ?? silentLogger()
  const evalId = options.evalId ?? newEvalId(now())
  const repeat = options.repeat ?? 1
  const concurrency = options.slots ? slots.length : Math.max(1, options.concurrency ?? 1)
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
    const taskSecrets = options.secrets?.[task.id]
    // The run scrubs its own events; what the eval adds (check outcomes read from the page, the
    // result text, errors) is scrubbed here with the same values.
    const secrets = RunSecrets.from(taskSecrets, [
      ...proxyCredentials(task.proxy),
      ...contextCredentials(task.browser),
    ])
    const runLog = log.child({ runId, taskId: task.id })
    const jobLog = secrets.isEmpty ? runLog : scrubbingLogger(runLog, (text) => secrets.scrub(text))
    let done: AgentEventOf<'done'> | undefined
    const started = now()
    try {
      const asked = runOptionsFor(
        { ...taskRequest(task), ...(taskSecrets === undefined ? {} : { secrets: taskSecrets }) },
        { model, ...(options.profiles ? { profiles: options.profiles } : {}) },
      )
      for await (const event of runAgent({
        ...asked,
        runId,
        ...webhookOption(task.webhook, runId, options),
        browser: probe?.factory ?? options.browser,
        ...(options.tracer ? { tracer: options.tracer } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.prices ? { prices: options.prices } : {}),
        ...(options.artifacts
          ? { artifactStore: options.artifacts.store, maxArtifactBytes: options.artifacts.maxBytes }
          : {}),
        log: runLog,
      })) {
        recorder?.record(event, { task: task.task, startUrl })
        options.observe?.(event)
        if (event.type === 'done') done = event
        queue.push(event)
      }
    } catch (error) {
      jobLog.error({ err: error }, 'an eval run failed')
    }
    const failed = done
      ? failedChecks(task.check, done.result, probe?.finalPage())
      : ['the run ended without a done event']
    const run: EvalRun = secrets.scrubDeep<EvalRun>(
      {
        runId,
        attempt,
        // Checks that hold on the page a run left behind when it ran out of turns, failed or was
        // aborted are luck, not the task done: only a run the model ended passes.
        passed: failed.length === 0 && done?.reason === 'model_stop',
        modelSuccess: done?.result.success ?? false,
        reason: done?.reason ?? 'error',
        resultText: done?.result.text ?? '',
        ...(done?.result.data === undefined ? {} : { data: done.result.data }),
        ...(done?.result.outcome === undefined ? {} : { outcome: done.result.outcome }),
        steps: done?.steps ?? 0,
        tokens: {
          input: done?.usage.inputTokens ?? 0,
          output: done?.usage.outputTokens ?? 0,
          cached: done?.usage.cachedInputTokens ?? 0,
        },
        costUsd: done ? (done.costUsd ?? null) : null,
        durationMs: done?.durationMs ?? now() - started,
        failedChecks: failed,
      },
      evalRunVocabulary,
    )
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
  const worker = async (slot: { release(): void } | undefined) => {
    try {
      while (next < jobs.length && !options.signal?.aborted) {
        const job = jobs[next++]
        if (job) await runJob(job)
      }
    } finally {
      slot?.release()
    }
  }
  const workerCount = Math.min(concurrency, jobs.length)
  handed.count = Math.min(workerCount, slots.length)
  for (const slot of slots.slice(handed.count)) slot.release()
  const workers = Promise.all(
    Array.from({ length: workerCount }, (_, index) => worker(slots[index])),
  ).finally(() => queue.end())
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

/** An eval's id: a run id's shape with its own prefix. */
export function newEvalId(now = Date.now()): string {
  return newRunId(now).replace(/^run_/, 'eval_')
}

/** A task's webhook, signed as the eval's caller says; its attempts recorded with the run when there is a store. */
function webhookOption(
  url: string | undefined,
  runId: string,
  options: EvalOptions,
): Pick<RunOptions, 'webhook'> {
  if (url === undefined) return {}
  if (!options.webhooks) throw new WebhookSecretMissingError()
  const { store, log } = options
  return {
    webhook: {
      url,
      ...options.webhooks,
      onAttempt: (attempt) =>
        void store?.webhooks.record(runId, attempt).catch((error: unknown) => {
          log?.warn({ err: error, runId }, 'could not record a webhook attempt')
        }),
    },
  }
}
