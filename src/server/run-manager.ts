import type { RunOptions, RunSummary, ScreenshotSettings } from '../agent/loop-types.ts'
import { prepareRun, ReplayError } from '../agent/replay-setup.ts'
import type { BrowserSessionFactory } from '../browser/types.ts'
import { type AgentEvent, type EventType, stampEvent } from '../events/events.ts'
import { newRunId } from '../events/run-id.ts'

import { type Logger, scrubbingLogger } from '../log.ts'
import type { PriceTable } from '../model/prices.ts'
import type { ResolvedModel } from '../model/resolve.ts'
import { recordingOf } from '../recording/from-events.ts'
import type { Recording } from '../recording/schema.ts'
import { RunSecrets } from '../secrets/index.ts'
import { ChildRunRecorder } from '../store/child-runs.ts'
import { EventWriter } from '../store/event-writer.ts'
import { type RunOwner, startHeartbeat, thisProcess } from '../store/owner.ts'
import type { RunStore, StoredRun } from '../store/types.ts'
import { isAbortError } from '../tool.ts'
import { settlesWithin } from '../util/deadline.ts'
import { describeError } from '../util/errors.ts'
import { LiveRun } from './live-run.ts'
import type { RunRequest } from './schemas.ts'

export type RunAgent = (options: RunOptions) => AsyncGenerator<AgentEvent, RunSummary>

export interface RunManagerOptions {
  store: RunStore
  runAgent: RunAgent
  /** "provider/model" (or the default) → model; throws ModelConfigError. */
  resolveModel: (name: string | undefined) => ResolvedModel
  /** Opens each run's browser (the launcher pool's factory); null runs without a browser. */
  browser: BrowserSessionFactory | null
  maxRuns: number
  defaultMaxTurns: number
  /** Bound on one event's JSON (SEXTANT_MAX_EVENT_BYTES). */
  maxEventBytes?: number
  /** Prices for the runs' costs (default: the shipped table). */
  prices?: PriceTable
  confirmationTimeoutMs?: number
  /** How long ask_user waits before the run carries on without an answer (default 5 min). */
  questionTimeoutMs?: number
  log: Logger
  /** Seconds a client is told to wait after a 429. */
  retryAfterSeconds?: number
  /** Where and how runs keep their step screenshots; absent: none are kept. */
  screenshots?: ScreenshotSettings
  /** Whether a run that does not say shows the model its screenshots. */
  vision?: boolean
}

export class TooManyRunsError extends Error {
  override name = 'TooManyRunsError'
  readonly retryAfterSeconds: number
  constructor(limit: number, retryAfterSeconds: number) {
    super(`${limit} runs are live, the most this server runs at once (SEXTANT_MAX_RUNS). Retry later.`)
    this.retryAfterSeconds = retryAfterSeconds
  }
}

export class ShuttingDownError extends Error {
  override name = 'ShuttingDownError'
  constructor() {
    super('The server is shutting down and starts no new runs.')
  }
}

/** How long DELETE waits for an aborted run to reach `done` before answering its state as is. */
const abortWaitMs = 5000

/**
 * The live runs of this process: starts each through runAgent, fans its
 * events out to subscribers and the store, holds the confirmations and
 * questions it waits for, and aborts it on request or at shutdown.
 */
export class RunManager {
  readonly #options: RunManagerOptions
  readonly #live = new Map<string, LiveRun>()
  readonly #writer: EventWriter
  readonly #owner: RunOwner = thisProcess()
  /** The sub-agents in the runs' streams, stored as runs of their own. */
  readonly #children: ChildRunRecorder
  /** Renews the lease of this process's runs while any is live, so other readers never take them for dead. */
  #heartbeat: { stop(): void } | undefined
  #closing = false

  constructor(options: RunManagerOptions) {
    this.#options = options
    this.#writer = new EventWriter(options.store, (error, lost) =>
      options.log.error({ err: error, lost }, 'could not store events'),
    )
    this.#children = new ChildRunRecorder(options.store, this.#writer, this.#owner, (error) =>
      options.log.error({ err: error }, 'could not store a sub-agent run'),
    )
  }

  /** "provider/model" (or the default) → model, as runs resolve it; throws ModelConfigError. */
  resolveModel(name: string | undefined): ResolvedModel {
    return this.#options.resolveModel(name)
  }

  /** The runs' browser factory (shared by evals); null when runs have no browser. */
  get browser(): BrowserSessionFactory | null {
    return this.#options.browser
  }

  get prices(): PriceTable | undefined {
    return this.#options.prices
  }

  get store(): RunStore {
    return this.#options.store
  }

  get liveCount(): number {
    return this.#live.size
  }

  get maxRuns(): number {
    return this.#options.maxRuns
  }

  /** The folder holding the runs' files (screenshots), when runs keep any. */
  get runsDir(): string | undefined {
    return this.#options.screenshots?.dir
  }

  /** Starts a run. Throws ModelConfigError, TooManyRunsError or ShuttingDownError before anything starts. */
  start(request: RunRequest): LiveRun {
    if (this.#closing) throw new ShuttingDownError()
    const replay = this.#recordingFor(request.replay)
    // A replay needs no model: without one it cannot heal, and says so where it would have to.
    const model = replay ? this.#modelForReplay(request.model) : this.#options.resolveModel(request.model)
    // Throws ReplayError (a variable without a value) before anything starts.
    const prepared = prepareRun({ ...request, replay, canHeal: model !== undefined })
    if (this.#live.size >= this.#options.maxRuns) {
      throw new TooManyRunsError(this.#options.maxRuns, this.#options.retryAfterSeconds ?? 5)
    }
    // The secrets live only in this run's memory: the store, the log and every view get the task
    // with placeholders. (The body was validated with the same schema, so this cannot throw.)
    const secrets = RunSecrets.from(request.secrets)
    const task = secrets.scrub(prepared.template)
    const modelName = model?.name ?? 'none'
    const run = new LiveRun({
      id: newRunId(),
      task,
      model: modelName,
      ...(prepared.startUrl === undefined ? {} : { startUrl: prepared.startUrl }),
      createdAt: new Date().toISOString(),
    })
    this.#options.store.createRun({ ...run.info, owner: this.#owner })
    this.#live.set(run.info.id, run)
    this.#heartbeat ??= startHeartbeat(() => this.#beat())
    const runLog = this.#options.log.child({ runId: run.info.id })
    const log = secrets.isEmpty ? runLog : scrubbingLogger(runLog, (text) => secrets.scrub(text))
    log.info({ model: modelName, task, live: this.#live.size }, 'run starting')

    const events = this.#options.runAgent({
      task: prepared.template,
      ...(request.secrets === undefined ? {} : { secrets: request.secrets }),
      ...(model ? { model: model.model } : {}),
      modelName,
      ...(replay ? { replay } : {}),
      ...(request.variables === undefined ? {} : { variables: request.variables }),
      runId: run.info.id,
      ...(prepared.startUrl === undefined ? {} : { startUrl: prepared.startUrl }),
      maxTurns: request.maxTurns ?? this.#options.defaultMaxTurns,
      ...(request.maxSessionTokens === undefined ? {} : { maxSessionTokens: request.maxSessionTokens }),
      ...(request.allowedDomains === undefined ? {} : { allowedDomains: request.allowedDomains }),
      ...(request.blockPrivateNetworks ? { blockPrivateNetworks: true } : {}),
      ...(request.subAgents === undefined ? {} : { subAgents: request.subAgents }),
      browser: this.#options.browser,
      ...(this.#options.maxEventBytes === undefined ? {} : { maxEventBytes: this.#options.maxEventBytes }),
      ...(this.#options.screenshots ? { screenshots: this.#options.screenshots } : {}),
      vision: request.vision ?? this.#options.vision ?? false,
      confirm: (confirmation, signal) => run.confirmations.wait(confirmation.callId, signal),
      ...(this.#options.confirmationTimeoutMs === undefined
        ? {}
        : { confirmationTimeoutMs: this.#options.confirmationTimeoutMs }),
      askUser: (question, signal) => this.#waitForAnswer(run, question.questionId, signal),
      signal: run.signal,
      ...(this.#options.prices === undefined ? {} : { prices: this.#options.prices }),
      log,
    })
    void this.#pump(run, events, log, secrets)
    return run
  }

  /** A run's events so far (live or stored); undefined when there is no such run. */
  events(runId: string): AgentEvent[] | undefined {
    const live = this.#live.get(runId)
    if (live) return live.eventsSoFar()
    if (!this.#options.store.getRun(runId)) return undefined
    return [...this.#options.store.events(runId)]
  }

  /** The recording a request replays: its own, or the one of the run it names. */
  #recordingFor(replay: RunRequest['replay']): Recording | undefined {
    if (replay === undefined || typeof replay === 'object') return replay
    const events = this.events(replay)
    if (!events) throw new ReplayError(`"replay" names no run: no run with id "${replay}".`)
    return recordingOf(events)
  }

  #modelForReplay(name: string | undefined): ResolvedModel | undefined {
    try {
      return this.#options.resolveModel(name)
    } catch (error) {
      // Asked for by name, a model that does not resolve is the caller's mistake; the default's absence is not.
      if (name !== undefined) throw error
      return undefined
    }
  }

  get(runId: string): LiveRun | undefined {
    return this.#live.get(runId)
  }

  /** The run as it is now: live from memory, else from the store. */
  view(runId: string): StoredRun | undefined {
    return this.#live.get(runId)?.snapshot() ?? this.#options.store.getRun(runId)
  }

  /** Aborts a live run and answers its final state; a finished run's state is answered unchanged. */
  async abort(runId: string): Promise<StoredRun | undefined> {
    const run = this.#live.get(runId)
    if (!run) return this.#options.store.getRun(runId)
    run.abort()
    await settlesWithin(run.finished, abortWaitMs)
    return run.snapshot()
  }

  /** Stops accepting runs, aborts the live ones and waits (bounded) until they have ended and are stored. */
  async shutdown(waitMs = 8000): Promise<void> {
    this.#closing = true
    const runs = [...this.#live.values()]
    for (const run of runs) run.abort()
    await settlesWithin(Promise.all(runs.map((run) => run.finished)), waitMs)
    this.#writer.flush()
    this.#stopHeartbeat()
  }

  #beat(): void {
    try {
      this.#options.store.heartbeat(this.#owner, new Date())
    } catch (error) {
      this.#options.log.warn({ err: error }, 'could not renew the lease of the live runs')
    }
  }

  #stopHeartbeat(): void {
    this.#heartbeat?.stop()
    this.#heartbeat = undefined
  }

  async #waitForAnswer(run: LiveRun, questionId: string, signal: AbortSignal): Promise<string> {
    const timeoutMs = this.#options.questionTimeoutMs ?? 300_000
    const timeout = new AbortController()
    const either = AbortSignal.any([signal, timeout.signal])
    const timer = setTimeout(() => timeout.abort(), timeoutMs)
    try {
      return await run.questions.wait(questionId, either)
    } catch (error) {
      if (timeout.signal.aborted && !signal.aborted) {
        run.questions.forget(questionId)
        return `(No answer came within ${Math.round(timeoutMs / 1000)} s. Continue without it.)`
      }
      throw error
    } finally {
      clearTimeout(timer)
    }
  }

  async #pump(
    run: LiveRun,
    events: AsyncGenerator<AgentEvent, RunSummary>,
    log: Logger,
    secrets: RunSecrets,
  ): Promise<void> {
    let previousType: EventType | undefined
    try {
      for await (const event of events) {
        // Expect replies before anyone sees the request, so a fast client is never refused.
        if (event.type === 'confirmation_required') run.confirmations.expect(event.callId)
        if (event.type === 'question') run.questions.expect(event.questionId)
        if (event.type === 'confirmation_resolved') run.confirmations.forget(event.callId)
        if (event.type === 'answer') run.questions.forget(event.questionId)
        run.push(event)
        // A sub-agent's event is stored under its own run; the parent's followers see it live.
        if (this.#children.record(event)) continue
        this.#writer.push(event)
        if (event.type !== previousType) logTransition(log, event)
        previousType = event.type
      }
    } catch (error) {
      if (!isAbortError(error)) log.error({ err: error }, 'run failed with an exception')
      if (!run.isDone) this.#endWith(run, error, log, secrets)
    } finally {
      if (!run.isDone) this.#endWith(run, new Error('The run ended without a done event.'), log, secrets)
      this.#finish(run, log)
    }
  }

  /** Every run ends with `done`, even when runAgent broke its promise to yield one. */
  #endWith(run: LiveRun, error: unknown, log: Logger, secrets: RunSecrets): void {
    const event = secrets.scrubDeep(finalEvent(run, error))
    run.push(event)
    this.#writer.push(event)
    logTransition(log, event)
  }

  #finish(run: LiveRun, log: Logger): void {
    try {
      this.#writer.flush()
      const view = run.snapshot()
      if (view.reason && view.result && view.finishedAt) {
        this.#options.store.finishRun(run.info.id, {
          reason: view.reason,
          result: view.result,
          usage: view.usage,
          costUsd: view.costUsd ?? null,
          steps: view.steps,
          finishedAt: view.finishedAt,
        })
      }
    } catch (error) {
      log.error({ err: error }, 'could not store the end of the run')
    } finally {
      this.#live.delete(run.info.id)
      if (this.#live.size === 0) this.#stopHeartbeat()
      run.markFinished()
    }
  }
}

function finalEvent(run: LiveRun, error: unknown): AgentEvent {
  const message = describeError(error)
  const view = run.snapshot()
  const aborted = isAbortError(error) || run.signal.aborted
  return stampEvent(
    {
      type: 'done',
      reason: aborted ? 'user_abort' : 'error',
      result: { success: false, text: aborted ? 'The run was aborted.' : `The run failed: ${message}` },
      usage: view.usage,
      costUsd: null,
      steps: view.steps,
      durationMs: Math.max(0, Date.now() - Date.parse(view.createdAt)),
    },
    run.info.id,
    run.lastSeq + 1,
    new Date(),
  )
}

function logTransition(log: Logger, event: AgentEvent): void {
  switch (event.type) {
    case 'done':
      log.info(
        {
          seq: event.seq,
          type: event.type,
          reason: event.reason,
          success: event.result.success,
          usage: event.usage,
        },
        'run done',
      )
      return
    case 'error':
      log.warn(
        { seq: event.seq, type: event.type, retryable: event.retryable, message: event.message },
        'run error',
      )
      return
    case 'step_started':
      log.info({ seq: event.seq, type: event.type, step: event.step }, 'run transition')
      return
    case 'tool_call_start':
      log.info({ seq: event.seq, type: event.type, tool: event.tool, callId: event.callId }, 'run transition')
      return
    default:
      log.info({ seq: event.seq, type: event.type }, 'run transition')
  }
}
