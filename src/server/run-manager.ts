import type { RunOptions, RunSummary, ScreenshotSettings } from '../agent/loop-types.ts'
import { type PreparedRun, prepareRun, ReplayError } from '../agent/replay-setup.ts'
import type { BrowserSessionFactory } from '../browser/browser-session.ts'
import type { AgentEvent, EventType } from '../events/events.ts'
import { newRunId } from '../events/run-id.ts'

import { type Logger, scrubbingLogger } from '../log.ts'
import type { PriceTable } from '../model/prices.ts'
import type { ResolvedModel } from '../model/resolve.ts'
import { recordingOf } from '../recording/from-events.ts'
import type { Recording } from '../recording/schema.ts'
import { RunSecrets } from '../secrets/secrets.ts'
import { ChildRunRecorder } from '../store/child-runs.ts'
import { EventWriter, type EventWriterHooks } from '../store/event-writer.ts'
import { ownerHeartbeatMs, ownerLeaseMs, type RunOwner, startHeartbeat, thisProcess } from '../store/owner.ts'
import type { RunStore, StoredRun } from '../store/run-store.ts'
import {
  type ControlMessage,
  isSharedStore,
  type ReplyMessage,
  type SharedRunStore,
} from '../store/shared.ts'
import { isAbortError } from '../tool.ts'
import { settlesWithin } from '../util/deadline.ts'
import { Coordinator } from './coordinator.ts'
import { followRun } from './follow-run.ts'
import { confirmationKey, LiveRun, type LiveRunInfo } from './live-run.ts'
import { finalEvent, logTransition, stoppedForBacklog } from './run-ending.ts'
import { abortElsewhere, type ReplyOutcome, replyThroughStore, settleReply } from './run-replies.ts'
import { type RunRequest, RunRequestSchema } from './schemas.ts'
import type { StreamEvent } from './sse.ts'
import { storeWriteHooks } from './store-writes.ts'
import { RunWakeups } from './wakeups.ts'

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
  /** With a shared store: POST queues a run when every slot is taken, and any server claims it (SEXTANT_QUEUE). */
  queue?: boolean
  /** Lease renewal period (SEXTANT_HEARTBEAT_MS). */
  heartbeatMs?: number
  /** A server silent this long is gone (SEXTANT_LEASE_MS). */
  leaseMs?: number
  /** Called as runs start, step and end (metrics); never lets an error into the run. */
  observe?: (event: AgentEvent) => void
  /** Where and how runs keep their step screenshots; absent: none are kept. */
  screenshots?: ScreenshotSettings
  /** Whether a run that does not say shows the model its screenshots. */
  vision?: boolean
  /** Told of store outages and recoveries (the metrics); they are logged either way. */
  storeWrites?: EventWriterHooks
  /** Unwritten events held during a store outage before the runs that push more are stopped. */
  maxBufferedEvents?: number
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

/** Followers of another server's run re-read the store this often even without a notification. */
const followPollMs = 1000

/**
 * The live runs of this process: starts each through runAgent, fans its
 * events out to subscribers and the store, holds the confirmations and
 * questions it waits for, and aborts it on request or at shutdown.
 */
/** What a request runs, settled before it starts (see RunManager.#plan). */
interface RunPlan {
  model?: ResolvedModel
  replay?: Recording
  prepared: PreparedRun
}

export class RunManager {
  readonly #options: RunManagerOptions
  readonly #live = new Map<string, LiveRun>()
  /** The live run each running sub-agent belongs to, so a reply can name the sub-agent's own run. */
  readonly #liveChildren = new Map<string, LiveRun>()
  readonly #writer: EventWriter
  readonly #owner: RunOwner = thisProcess()
  /** The sub-agents in the runs' streams, stored as runs of their own. */
  readonly #children: ChildRunRecorder
  /** Renews the lease of this process's runs while any is live, so other readers never take them for dead. */
  #heartbeat: { stop(): void } | undefined
  readonly #wakeups = new RunWakeups()
  /** With a shared store: this server among the others. */
  readonly #coordinator: Coordinator | undefined
  /** Runs stopped because the store left too many of their events unwritten: they end failed. */
  readonly #backlogged = new WeakSet<LiveRun>()
  /** Claims in flight: slots taken before their run is live. */
  #claiming = 0
  #closing = false

  constructor(options: RunManagerOptions) {
    this.#options = options
    const storeWrites = storeWriteHooks(options.log, options.storeWrites)
    this.#writer = new EventWriter(
      options.store,
      (error, lost) => options.log.error({ err: error, lost }, 'could not store events'),
      {
        ...storeWrites,
        ...(options.maxBufferedEvents === undefined ? {} : { maxBuffered: options.maxBufferedEvents }),
        onOverflow: (runId) => {
          storeWrites.onOverflow?.(runId)
          this.#stopForBacklog(runId)
        },
      },
    )
    this.#children = new ChildRunRecorder(options.store, this.#writer, this.#owner, (error) =>
      options.log.error({ err: error }, 'could not store a sub-agent run'),
    )
    const store = options.store
    if (isSharedStore(store)) {
      this.#coordinator = new Coordinator({
        store,
        owner: this.#owner,
        wakeups: this.#wakeups,
        heartbeatMs: options.heartbeatMs ?? ownerHeartbeatMs,
        leaseMs: options.leaseMs ?? ownerLeaseMs,
        log: options.log,
        onControl: (message) => this.#onControl(message),
        onQueue: () => void this.#claimQueued(),
      })
    }
  }

  /** With a shared store, starts listening to the other servers; resolves once listening. */
  async attach(): Promise<void> {
    await this.#coordinator?.start()
  }

  get queueing(): boolean {
    return Boolean(this.#options.queue) && this.#shared !== undefined
  }

  get #shared(): SharedRunStore | undefined {
    const store = this.#options.store
    return isSharedStore(store) ? store : undefined
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

  /**
   * Starts a run, or queues it (SEXTANT_QUEUE) when every slot is taken; its
   * id either way. Throws ModelConfigError, TooManyRunsError or
   * ShuttingDownError before anything starts.
   */
  async start(request: RunRequest): Promise<string> {
    if (this.#closing) throw new ShuttingDownError()
    // Throws ModelConfigError or ReplayError (a variable without a value) before anything starts.
    const plan = await this.#plan(request)
    const shared = this.#shared
    // A run with secrets is never queued: the queue is a table, and secrets are never stored. It runs here
    // when a slot is free, else the caller hears 429 and retries.
    if (this.queueing && shared && request.secrets === undefined) {
      // Queued in order; this server claims it at once when it has a slot, like any other.
      const info = this.#newInfo(request, plan)
      await shared.enqueueRun({ ...info, owner: this.#owner }, request)
      void this.#claimQueued()
      return info.id
    }
    if (this.#live.size + this.#claiming >= this.#options.maxRuns) {
      throw new TooManyRunsError(this.#options.maxRuns, this.#options.retryAfterSeconds ?? 5)
    }
    const info = this.#newInfo(request, plan)
    this.#claiming++
    try {
      await this.#options.store.createRun({ ...info, owner: this.#owner })
    } finally {
      this.#claiming--
    }
    this.#launch(info, request, plan)
    return info.id
  }

  /** What a request runs: its model (none for a replay that cannot heal), its recording, its task filled in. */
  async #plan(request: RunRequest): Promise<RunPlan> {
    const replay = await this.#recordingFor(request.replay)
    // A replay needs no model: without one it cannot heal, and says so where it would have to.
    const model = replay ? this.#modelForReplay(request.model) : this.#options.resolveModel(request.model)
    const prepared = prepareRun({ ...request, replay, canHeal: model !== undefined })
    return { ...(model ? { model } : {}), ...(replay ? { replay } : {}), prepared }
  }

  /** The run's record: its task with secret values replaced by placeholders, for the store, the log and every view. */
  #newInfo(request: RunRequest, plan: RunPlan): LiveRunInfo {
    const secrets = RunSecrets.from(request.secrets)
    const { startUrl } = plan.prepared
    return {
      id: newRunId(),
      task: secrets.scrub(plan.prepared.template),
      model: plan.model?.name ?? 'none',
      ...(startUrl === undefined ? {} : { startUrl }),
      createdAt: new Date().toISOString(),
    }
  }

  /** Runs a stored run here: its events go to followers and the store. */
  #launch(info: LiveRunInfo, request: RunRequest, plan: RunPlan): LiveRun {
    // The secrets live only in this run's memory. (The body was validated with the same schema, so this cannot throw.)
    const secrets = RunSecrets.from(request.secrets)
    const { model, replay, prepared } = plan
    const modelName = info.model
    const run = new LiveRun(info)
    this.#live.set(run.info.id, run)
    if (!this.#coordinator) this.#heartbeat ??= startHeartbeat(() => this.#beat(), this.#options.heartbeatMs)
    const runLog = this.#options.log.child({ runId: run.info.id })
    const log = secrets.isEmpty ? runLog : scrubbingLogger(runLog, (text) => secrets.scrub(text))
    log.info({ model: modelName, task: info.task, live: this.#live.size }, 'run starting')

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
      confirm: (confirmation, signal) =>
        run.confirmations.wait(confirmationKey(confirmation.runId, confirmation.callId), signal),
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

  /** A run's events so far (live here, or stored); undefined when there is no such run. */
  async events(runId: string): Promise<AgentEvent[] | undefined> {
    const live = this.#live.get(runId)
    if (live) return live.eventsSoFar()
    if (!(await this.#options.store.getRun(runId))) return undefined
    return this.#options.store.events(runId)
  }

  /** The recording a request replays: its own, or the one of the run it names. */
  async #recordingFor(replay: RunRequest['replay']): Promise<Recording | undefined> {
    if (replay === undefined || typeof replay === 'object') return replay
    const events = await this.events(replay)
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
  async view(runId: string): Promise<StoredRun | undefined> {
    return this.#live.get(runId)?.snapshot() ?? (await this.#options.store.getRun(runId))
  }

  /** The run's events after `afterSeq`, then each new one until `done`, wherever it runs (see followRun). */
  follow(runId: string, afterSeq: number, signal: AbortSignal): AsyncGenerator<StreamEvent, void, undefined> {
    return followRun(
      {
        store: this.#options.store,
        wakeups: this.#wakeups,
        live: (id) => this.#live.get(id),
        pollMs: followPollMs,
      },
      runId,
      afterSeq,
      signal,
    )
  }

  /**
   * Aborts a run and answers its final state; a finished run's state is
   * answered unchanged. Another server's run is told through the shared store;
   * a queued one is taken out of the queue.
   */
  async abort(runId: string): Promise<StoredRun | undefined> {
    const run = this.#live.get(runId)
    if (run) {
      run.abort()
      await settlesWithin(run.finished, abortWaitMs)
      return run.snapshot()
    }
    const shared = this.#shared
    if (!shared) return this.#options.store.getRun(runId)
    return abortElsewhere(shared, runId, abortWaitMs, (signal) => this.follow(runId, -1, signal))
  }

  /**
   * Delivers a confirmation or an answer to the run waiting for it, on this
   * server or another. With a shared store, it is recorded first, once: the
   * same reply sent twice (to two servers) is refused the second time.
   */
  async reply(message: ReplyMessage): Promise<ReplyOutcome> {
    const run = this.#liveRunOf(message.runId)
    const shared = this.#shared
    if (!shared) {
      if (!run) return (await this.#options.store.getRun(message.runId)) ? 'ended' : 'not_found'
      return settleReply(run, message)
    }
    return replyThroughStore(shared, run, message)
  }

  #onControl(message: ControlMessage): void {
    if (message.kind === 'abort') {
      this.#live.get(message.runId)?.abort()
      return
    }
    const run = this.#liveRunOf(message.runId)
    if (run) settleReply(run, message)
  }

  /** The live run with this id, or the live run a running sub-agent with this id belongs to. */
  #liveRunOf(runId: string): LiveRun | undefined {
    return this.#live.get(runId) ?? this.#liveChildren.get(runId)
  }

  /** Claims queued runs while this server has free slots. */
  async #claimQueued(): Promise<void> {
    const shared = this.#shared
    if (!shared || !this.#options.queue) return
    while (!this.#closing && this.#live.size + this.#claiming < this.#options.maxRuns) {
      this.#claiming++
      try {
        const claimed = await shared.claimQueuedRun(this.#owner, new Date())
        if (!claimed) return
        await this.#startClaimed(claimed.run, claimed.request)
      } catch (error) {
        this.#options.log.error({ err: error }, 'could not claim a queued run')
        return
      } finally {
        this.#claiming--
      }
    }
  }

  /** A claimed run starts here; a request this server cannot run (its model unknown here) ends it failed. */
  async #startClaimed(stored: StoredRun, body: unknown): Promise<void> {
    const info: LiveRunInfo = {
      id: stored.id,
      task: stored.task,
      model: stored.model,
      ...(stored.startUrl === undefined ? {} : { startUrl: stored.startUrl }),
      createdAt: stored.createdAt,
    }
    try {
      const request = RunRequestSchema.parse(body)
      this.#launch(info, request, await this.#plan(request))
    } catch (error) {
      const run = new LiveRun(info)
      this.#live.set(info.id, run)
      const log = this.#options.log.child({ runId: info.id })
      this.#endWith(run, error, log, RunSecrets.from(undefined))
      void this.#finish(run, log)
    }
  }

  /** Stops accepting runs, aborts the live ones and waits (bounded) until they have ended and are stored. */
  async shutdown(waitMs = 8000): Promise<void> {
    this.#closing = true
    this.#coordinator?.stop()
    const runs = [...this.#live.values()]
    for (const run of runs) run.abort()
    await settlesWithin(Promise.all(runs.map((run) => run.finished)), waitMs)
    await settlesWithin(this.#writer.flush(), waitMs)
    // What the store did not take by now is reported lost, and no retry is left waiting.
    await this.#writer.close()
    this.#stopHeartbeat()
  }

  #beat(): void {
    this.#options.store.heartbeat(this.#owner, new Date()).catch((error: unknown) => {
      this.#options.log.warn({ err: error }, 'could not renew the lease of the live runs')
    })
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
      for await (const raw of events) {
        const event = this.#asStored(run, raw)
        // Expect replies before anyone sees the request, so a fast client is never refused.
        if (event.parentRunId !== undefined) this.#liveChildren.set(event.runId, run)
        if (event.type === 'confirmation_required')
          run.confirmations.expect(confirmationKey(event.runId, event.callId))
        if (event.type === 'question') run.questions.expect(event.questionId)
        if (event.type === 'confirmation_resolved')
          run.confirmations.forget(confirmationKey(event.runId, event.callId))
        if (event.type === 'answer') run.questions.forget(event.questionId)
        run.push(event)
        // A sub-agent's event is stored under its own run; the parent's followers see it live.
        if (this.#children.record(event)) continue
        this.#writer.push(event)
        this.#observe(event)
        if (event.type !== previousType) logTransition(log, event)
        previousType = event.type
      }
    } catch (error) {
      if (!isAbortError(error)) log.error({ err: error }, 'run failed with an exception')
      if (!run.isDone) this.#endWith(run, error, log, secrets)
    } finally {
      if (!run.isDone) this.#endWith(run, new Error('The run ended without a done event.'), log, secrets)
      await this.#finish(run, log)
    }
  }

  /** Stops a run whose events pile up unwritten (the store is away): its `done` will say why. */
  #stopForBacklog(runId: string): void {
    const run = this.#liveRunOf(runId)
    if (!run || run.isDone) return
    this.#backlogged.add(run)
    run.abort()
  }

  /** The run's own `done`, when it was stopped for the store's backlog, says so. */
  #asStored(run: LiveRun, event: AgentEvent): AgentEvent {
    if (event.type !== 'done' || event.runId !== run.info.id || !this.#backlogged.has(run)) return event
    return stoppedForBacklog(event)
  }

  #observe(event: AgentEvent): void {
    try {
      this.#options.observe?.(event)
    } catch (error) {
      this.#options.log.warn({ err: error }, 'an observer of run events failed')
    }
  }

  /** Every run ends with `done`, even when runAgent broke its promise to yield one. */
  #endWith(run: LiveRun, error: unknown, log: Logger, secrets: RunSecrets): void {
    const event = this.#asStored(run, secrets.scrubDeep(finalEvent(run, error)))
    run.push(event)
    this.#writer.push(event)
    this.#observe(event)
    logTransition(log, event)
  }

  async #finish(run: LiveRun, log: Logger): Promise<void> {
    try {
      await this.#writer.flush()
      const view = run.snapshot()
      if (view.reason && view.result && view.finishedAt) {
        await this.#options.store.finishRun(run.info.id, {
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
      for (const [child, owner] of this.#liveChildren) if (owner === run) this.#liveChildren.delete(child)
      if (this.#live.size === 0) this.#stopHeartbeat()
      run.markFinished()
      void this.#claimQueued()
    }
  }
}
