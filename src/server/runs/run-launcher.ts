import type { Tracer } from '@opentelemetry/api'
import { createHandoverDesk } from '../../agent/handover/handover-desk.ts'
import type { SettledRun } from '../../agent/replay/replay-setup.ts'
import type { RunOptions, RunSummary, ScreenshotSettings } from '../../agent/run/run-options.ts'
import { runOptionsFor } from '../../agent/run/run-request.ts'
import type { BrowserSessionFactory } from '../../browser/browser-session.ts'
import type { ArtifactSettings } from '../../browser/session/artifacts/artifact-settings.ts'
import type { AgentEvent, EventType } from '../../events/events.ts'
import { type Logger, scrubbingLogger } from '../../log.ts'
import type { PriceTable } from '../../model/prices.ts'
import { RunSecrets } from '../../secrets/secrets.ts'
import { ChildRunRecorder } from '../../store/child-runs.ts'
import { EventWriter, type EventWriterHooks } from '../../store/event-writer.ts'
import type { RunOwner } from '../../store/owner.ts'
import type { ProfileStore } from '../../store/profiles/profile-store.ts'
import type { RunStore } from '../../store/run-store.ts'
import { RunFencedError } from '../../store/store-errors.ts'
import { isAbortError } from '../../tool.ts'
import type { ArtifactStore, DownloadStore } from '../../util/run-downloads.ts'
import type { RunRequest } from '../http/schemas.ts'
import type { RunWebhooks } from '../run-webhooks.ts'
import { confirmationKey, LiveRun, type LiveRunInfo } from './live-run.ts'
import type { LiveRuns } from './live-runs.ts'
import { finalEvent, logTransition, stoppedForBacklog, takenOverEvent } from './run-ending.ts'
import type { RunPlan } from './run-plan.ts'
import { waitForAnswer } from './run-replies.ts'
import type { RunSlot } from './run-slots.ts'
import { storeWriteHooks } from './store-writes.ts'

export type RunAgent = (options: RunOptions, settled?: SettledRun) => AsyncGenerator<AgentEvent, RunSummary>

export interface RunLaunchOptions {
  store: RunStore
  runAgent: RunAgent
  /** Opens each run's browser (the launcher pool's factory); null runs without a browser. */
  browser: BrowserSessionFactory | null
  defaultMaxTurns: number
  /** Bound on one event's JSON (SEXTANT_MAX_EVENT_BYTES). */
  maxEventBytes?: number
  /** Prices for the runs' costs (default: the shipped table). */
  prices?: PriceTable
  confirmationTimeoutMs?: number
  /** How long a run waits for a person who took over or was asked for (default 10 min). */
  handoverTimeoutMs?: number
  /** Hand-overs a run's model may ask for (default 3, SEXTANT_MAX_HANDOVERS). */
  maxHandovers?: number
  /**
   * false: no person can reach this process's runs (`sextant mcp` over stdio
   * serves no viewer and no takeover route), so they get no handover desk:
   * hand_over is not offered, and a replayed one ends the replay naming it.
   */
  handover?: boolean
  /** The wall-clock bound of a run whose request sets none (SEXTANT_MAX_RUN_MS); absent: none. */
  maxRunMs?: number
  /** How long a replay waits for a recorded element or expectation (SEXTANT_REPLAY_WAIT_MS); absent: 8 s. */
  replayWaitMs?: number
  /** How long ask_user waits before the run carries on without an answer (default 5 min). */
  questionTimeoutMs?: number
  log: Logger
  /** Called as runs start, step and end (metrics); never lets an error into the run. */
  observe?: (event: AgentEvent) => void
  /** Where and how runs keep their step screenshots; absent: none are kept. */
  screenshots?: ScreenshotSettings
  /** Where runs' downloads are kept (their folder, or the shared store), for GET …/downloads on any server. */
  downloads?: DownloadStore
  /** Where runs' artifacts are kept (as downloads are), their bound, and what a request naming none keeps. */
  artifacts?: { store: ArtifactStore; maxBytes: number; defaults?: ArtifactSettings }
  /** Whether a run that does not say shows the model its screenshots. */
  vision?: boolean
  /** Told of store outages and recoveries (the metrics); they are logged either way. */
  storeWrites?: EventWriterHooks
  /** Unwritten events held during a store outage before the runs that push more are stopped. */
  maxBufferedEvents?: number
  /** Where runs' profiles are kept; absent: a run naming a profile is refused. */
  profiles?: ProfileStore
  /** Tells runs' webhooks of their end (and of a person needed); absent: a run asking for one is refused. */
  webhooks?: RunWebhooks
  /** Traces runs (OTEL_*); absent: none, and no SDK is loaded. */
  tracer?: Tracer
}

/** What the rest of the server hears of the runs going live here. */
export interface LaunchHooks {
  /** A run is live here: its lease must be renewed. */
  started(): void
  /** A run has ended, is stored, left the live runs and gave back its slot; its followers hear it next. */
  ended(): void
}

/** What one run going live here carries along. */
interface Launched {
  run: LiveRun
  log: Logger
  secrets: RunSecrets
  slot: RunSlot
}

/**
 * Runs admitted runs in this process: starts each through runAgent, expects
 * the replies its events ask for, fans its events out to followers, the store
 * and the observer, and makes sure it ends with `done`, stored.
 */
export class RunLauncher {
  readonly #options: RunLaunchOptions
  readonly #live: LiveRuns
  readonly #hooks: LaunchHooks
  readonly #owner: RunOwner
  /** The store refused writes for runs another server owns now: logged, counted, and those runs lost here. */
  readonly #onFenced: (error: RunFencedError) => void
  readonly #writer: EventWriter
  /** The sub-agents in the runs' streams, stored as runs of their own. */
  readonly #children: ChildRunRecorder
  /** Runs stopped because the store left too many of their events unwritten: they end failed. */
  readonly #backlogged = new WeakSet<LiveRun>()

  constructor(options: RunLaunchOptions, live: LiveRuns, owner: RunOwner, hooks: LaunchHooks) {
    this.#options = options
    this.#live = live
    this.#hooks = hooks
    this.#owner = owner
    const storeWrites = storeWriteHooks(options.log, options.storeWrites)
    this.#onFenced = (error) => {
      storeWrites.onFenced?.(error)
      this.lose(error.runIds)
    }
    this.#writer = new EventWriter(
      options.store,
      (error, lost) => options.log.error({ err: error, lost }, 'could not store events'),
      {
        ...storeWrites,
        ...(options.maxBufferedEvents === undefined ? {} : { maxBuffered: options.maxBufferedEvents }),
        owner,
        onOverflow: (runId) => {
          storeWrites.onOverflow?.(runId)
          this.#stopForBacklog(runId)
        },
        onFenced: this.#onFenced,
      },
    )
    this.#children = new ChildRunRecorder(options.store, this.#writer, owner, (error) =>
      options.log.error({ err: error }, 'could not store a sub-agent run'),
    )
  }

  /** Runs a stored run here: its events go to followers and the store; its slot is given back once it ends. */
  launch(info: LiveRunInfo, request: RunRequest, plan: RunPlan, slot: RunSlot): void {
    const options = this.#options
    const { handoverTimeoutMs: timeoutMs, maxHandovers } = options
    const asked = runOptionsFor(request, {
      ...(plan.model ? { model: plan.model } : {}),
      ...(plan.replay ? { replay: plan.replay } : {}),
      ...(options.replayWaitMs === undefined ? {} : { replayWaitMs: options.replayWaitMs }),
      maxTurns: options.defaultMaxTurns,
      ...(options.maxRunMs === undefined ? {} : { maxDurationMs: options.maxRunMs }),
      vision: options.vision ?? false,
      ...(options.profiles ? { profiles: options.profiles } : {}),
      ...(options.artifacts?.defaults ? { artifacts: options.artifacts.defaults } : {}),
      // A person may take the run's browser unless the request opted out, or nobody can reach this process.
      ...(options.handover === false
        ? {}
        : {
            handover: () =>
              createHandoverDesk({
                ...(timeoutMs === undefined ? {} : { timeoutMs }),
                ...(maxHandovers === undefined ? {} : { maxHandovers }),
              }),
          }),
    })
    // The secrets live only in this run's memory, read once by the plan.
    const { secrets } = plan
    // A claimed run's record names no webhook (the store keeps it): its request does.
    const run = new LiveRun(
      request.webhook === undefined ? info : { ...info, webhook: request.webhook },
      asked.handover,
    )
    this.#live.add(run)
    this.#hooks.started()
    const runLog = options.log.child({ runId: run.info.id })
    const log = secrets.isEmpty ? runLog : scrubbingLogger(runLog, (text) => secrets.scrub(text))
    log.info({ model: info.model, task: info.task, live: this.#live.size }, 'run starting')

    const events = options.runAgent(
      {
        ...asked,
        // runAgent traces the run (under the request's traceparent, kept through the queue with it).
        ...(options.tracer ? { tracer: options.tracer } : {}),
        modelName: info.model,
        runId: run.info.id,
        browser: options.browser,
        onBrowser: (browser) => {
          run.browser = browser
        },
        ...(options.maxEventBytes === undefined ? {} : { maxEventBytes: options.maxEventBytes }),
        ...(options.screenshots ? { screenshots: options.screenshots } : {}),
        ...(options.downloads ? { downloads: options.downloads } : {}),
        ...(options.artifacts
          ? { artifactStore: options.artifacts.store, maxArtifactBytes: options.artifacts.maxBytes }
          : {}),
        confirm: (confirmation, signal) =>
          run.confirmations.wait(confirmationKey(confirmation.runId, confirmation.callId), signal),
        ...(options.confirmationTimeoutMs === undefined
          ? {}
          : { confirmationTimeoutMs: options.confirmationTimeoutMs }),
        askUser: (question, signal) =>
          waitForAnswer(run, question.questionId, signal, options.questionTimeoutMs ?? 300_000),
        signal: run.signal,
        ...(options.prices === undefined ? {} : { prices: options.prices }),
        log,
      },
      // What the plan settled (the task filled in, the replay, the secrets) is the run's: not settled again.
      { prepared: plan.prepared, secrets },
    )
    void this.#pump({ run, log, secrets, slot }, events)
  }

  /** A stored run that cannot run here (its request unreadable, its model unknown here) ends at once, failed. */
  fail(info: LiveRunInfo, error: unknown, slot: RunSlot): void {
    const run = new LiveRun(info)
    this.#live.add(run)
    const launched = {
      run,
      log: this.#options.log.child({ runId: info.id }),
      secrets: RunSecrets.from(undefined),
      slot,
    }
    this.#endWith(launched, error)
    void this.#finish(launched)
  }

  /**
   * Runs (or sub-agents' runs) another server ended or claimed: each live run
   * holding one is stopped here, its followers told why (takenOverEvent) and
   * let go; its browser and model request go with the abort.
   */
  lose(runIds: readonly string[]): void {
    for (const runId of runIds) {
      const run = this.#live.holding(runId)
      if (!run || run.isLost) continue
      this.#options.log.warn(
        { runId: run.info.id },
        'another server ended or took over this run: stopping it here',
      )
      run.lose(takenOverEvent(run))
    }
  }

  /** Settles once every event handed to the store so far is written. */
  flush(): Promise<void> {
    return this.#writer.flush()
  }

  /** Gives up on what the store has not taken by now: reported lost, and no retry is left waiting. */
  close(): Promise<void> {
    return this.#writer.close()
  }

  async #pump(launched: Launched, events: AsyncGenerator<AgentEvent, RunSummary>): Promise<void> {
    const { run, log } = launched
    let previousType: EventType | undefined
    try {
      for await (const raw of events) {
        const event = this.#asStored(run, raw)
        if (event.parentRunId !== undefined) this.#live.addChild(event.runId, run)
        run.push(event)
        // A sub-agent's event is stored under its own run; the parent's followers see it live.
        if (event.type === 'takeover_started' || event.type === 'confirmation_required')
          this.#options.webhooks?.needsPerson(run.info.id, run.info.webhook, event)
        if (this.#children.record(event)) continue
        this.#writer.push(event)
        this.#observe(event)
        if (event.type !== previousType) logTransition(log, event)
        previousType = event.type
      }
    } catch (error) {
      if (!isAbortError(error)) log.error({ err: error }, 'run failed with an exception')
      if (!run.isDone) this.#endWith(launched, error)
    } finally {
      if (!run.isDone) this.#endWith(launched, new Error('The run ended without a done event.'))
      await this.#finish(launched)
    }
  }

  /** Stops a run whose events pile up unwritten (the store is away): its `done` will say why. */
  #stopForBacklog(runId: string): void {
    const run = this.#live.holding(runId)
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
  #endWith({ run, log, secrets }: Launched, error: unknown): void {
    const event = this.#asStored(run, secrets.scrubDeep(finalEvent(run, error)))
    run.push(event)
    this.#writer.push(event)
    this.#observe(event)
    logTransition(log, event)
  }

  async #finish({ run, log, slot, secrets }: Launched): Promise<void> {
    try {
      await this.#writer.flush()
      const view = run.snapshot()
      if (view.reason && view.result && view.finishedAt) {
        await this.#options.store.finishRun(
          run.info.id,
          {
            reason: view.reason,
            result: view.result,
            usage: view.usage,
            costUsd: view.costUsd ?? null,
            steps: view.steps,
            finishedAt: view.finishedAt,
          },
          this.#owner,
        )
        // Stored as this server's ending: this server tells the run's webhook (the sweep tells those it ends).
        this.#options.webhooks?.ended(run.info.id, (value) => secrets.scrubDeep(value))
      }
    } catch (error) {
      if (error instanceof RunFencedError) this.#onFenced(error)
      else log.error({ err: error }, 'could not store the end of the run')
    } finally {
      this.#live.remove(run)
      slot.release()
      this.#hooks.ended()
      run.markFinished()
    }
  }
}
