import type { Tracer } from '@opentelemetry/api'
import { typesSecrets } from '../../agent/run/open-browser.ts'
import type { BrowserSessionFactory } from '../../browser/browser-session.ts'
import {
  ArtifactsError,
  refuseUnscrubbableArtifacts,
  wantsArtifacts,
} from '../../browser/session/artifacts/artifact-settings.ts'
import { type ContextSettings, refuseInsecureTls } from '../../browser/session/context-settings.ts'
import type { AgentEvent } from '../../events/events.ts'
import type { PriceTable } from '../../model/prices.ts'
import type { ResolvedModel } from '../../model/resolve.ts'
import { type RunOwner, thisProcess } from '../../store/owner.ts'
import type { ProfileStore } from '../../store/profiles/profile-store.ts'
import type { RunStore, StoredRun } from '../../store/run-store.ts'
import { isSharedStore, type ReplyMessage } from '../../store/shared.ts'
import { settlesWithin } from '../../util/deadline.ts'
import type { ArtifactStore, DownloadStore } from '../../util/run-downloads.ts'
import { folderStepFiles, type StepFileStore } from '../../util/step-files.ts'
import type { WebhookSigning } from '../../webhooks/run-webhook.ts'
import type { RunRequest } from '../http/schemas.ts'
import type { StreamEvent } from '../http/sse.ts'
import { readOwnerText } from '../routes/owner-text.ts'
import { ownerRefusal } from '../routes/relay.ts'
import { WebhookSecretMissingError } from '../run-webhooks.ts'
import { LiveEvals } from './live-evals.ts'
import type { LiveRun } from './live-run.ts'
import { LiveRuns } from './live-runs.ts'
import { RunAdmission, type RunAdmissionOptions } from './run-admission.ts'
import { RunControl } from './run-control.ts'
import { RunLauncher, type RunLaunchOptions } from './run-launcher.ts'
import { RunOwnership, type RunOwnershipOptions } from './run-ownership.ts'
import { planRun } from './run-plan.ts'
import type { ReplyOutcome } from './run-replies.ts'
import { type RunSlot, RunSlots } from './run-slots.ts'
import { QueuePositions, RunWakeups } from './wakeups.ts'

// Where the routes and the server have always found them.
export { QueueFullError, ShuttingDownError, TooManyRunsError } from './run-admission.ts'
export type { RunAgent } from './run-launcher.ts'

export interface RunManagerOptions extends RunLaunchOptions, RunAdmissionOptions, RunOwnershipOptions {
  /** The fleet's relay secret (routes/relay.ts): followers here read another server's live-only events with it. */
  relaySecret?: string
  /** "provider/model" (or the default) → model; throws ModelConfigError. */
  resolveModel: (name: string | undefined) => ResolvedModel
  maxRuns: number
  /** Runs may ask for `browser.ignoreHTTPSErrors` (SEXTANT_ALLOW_INSECURE_TLS). */
  allowInsecureTls?: boolean
}

/**
 * The runs of this process, as the routes see them: what admits them
 * (run-admission), runs them (run-launcher), reaches them wherever they run
 * (run-control) and holds their lease (run-ownership), put together.
 */
export class RunManager {
  readonly #options: RunManagerOptions
  readonly #live = new LiveRuns()
  /** Evals running here (POST /v1/evals): their runs hold slots of the same SEXTANT_MAX_RUNS. */
  readonly evals = new LiveEvals()
  readonly #launcher: RunLauncher
  readonly #admission: RunAdmission
  readonly #control: RunControl
  readonly #ownership: RunOwnership
  /** This process as its runs record it; its `url` is known once the server listens. */
  readonly #owner: RunOwner

  constructor(options: RunManagerOptions) {
    this.#options = options
    // This process's identity, with the address this manager's server will be reached at (set as it listens).
    const owner: RunOwner = { ...thisProcess() }
    this.#owner = owner
    const live = this.#live
    const wakeups = new RunWakeups()
    const positions = isSharedStore(options.store) ? new QueuePositions(options.store) : undefined
    this.#control = new RunControl({
      store: options.store,
      live,
      wakeups,
      positions,
      ...ownerTextOf(options.store, options.relaySecret, owner),
      onWithdrawn: (runId) => options.webhooks?.ended(runId),
    })
    this.#ownership = new RunOwnership(options, {
      owner,
      live,
      wakeups,
      positions,
      onControl: (message) => this.#control.onControl(message),
      onQueue: () => void this.#admission.claimQueued(),
      onLost: (runIds) => this.#launcher.lose(runIds),
      onEnded: (runIds) => {
        for (const runId of runIds) options.webhooks?.ended(runId)
      },
    })
    this.#launcher = new RunLauncher(options, live, owner, {
      started: () => this.#ownership.runStarted(),
      ended: () => {
        this.#ownership.runEnded()
        void this.#admission.claimQueued()
      },
    })
    this.#admission = new RunAdmission(options, {
      owner,
      slots: new RunSlots(options.maxRuns),
      plan: async (request) => {
        // A profile that cannot be opened here is refused before the run is stored or queued.
        if (request.profile !== undefined) options.profiles?.checkKey()
        // So is a webhook this server could not sign or may not reach.
        this.checkWebhook(request.webhook)
        const plan = await planRun(request, {
          resolveModel: options.resolveModel,
          events: (id) => this.events(id),
          ...(options.prices ? { prices: options.prices } : {}),
        })
        // The context the run gets: the request's, else its recording's.
        this.checkContext(plan.prepared.browserContext)
        this.checkArtifacts(request)
        return plan
      },
      launch: (info, request, plan, slot) => this.#launcher.launch(info, request, plan, slot),
      fail: (info, error, slot) => this.#launcher.fail(info, error, slot),
    })
  }

  /** With a shared store, starts listening to the other servers; resolves once listening. */
  async attach(): Promise<void> {
    await this.#ownership.attach()
  }

  /** Where the other servers reach this one, recorded with every run it starts or claims from now on. */
  get internalUrl(): string | undefined {
    return this.#owner.url
  }

  /** Set once, as the server starts listening and before it takes a run. */
  set internalUrl(url: string | undefined) {
    this.#owner.url = url
  }

  /** The internal address of the server running `runId`, for a relay; undefined without a shared store. */
  async ownerUrl(runId: string): Promise<string | undefined> {
    const store = this.#options.store
    return isSharedStore(store) ? store.ownerUrl(runId) : undefined
  }

  /** Throws WebhookSecretMissingError or WebhookTargetError when a run may not ask for `url`. */
  checkWebhook(url: string | undefined): void {
    if (url === undefined) return
    if (!this.#options.webhooks) throw new WebhookSecretMissingError()
    this.#options.webhooks.check(url)
  }

  /** A run's browser context this server does not allow (insecure TLS without SEXTANT_ALLOW_INSECURE_TLS): throws ContextSettingsError. */
  checkContext(settings: ContextSettings | undefined): void {
    refuseInsecureTls(settings, this.#options.allowInsecureTls ?? false)
  }

  /**
   * Artifacts this server cannot keep (no runs folder, no shared store), or not keep clean (a video of a
   * run with secrets): throws ArtifactsError, a 400 before the run is stored.
   */
  checkArtifacts(request: Pick<RunRequest, 'artifacts' | 'secrets'>): void {
    refuseUnscrubbableArtifacts(request.artifacts, typesSecrets(request))
    if (wantsArtifacts(request.artifacts) && !this.#options.artifacts)
      throw new ArtifactsError(
        'This server keeps no run files (no SEXTANT_RUNS_DIR, no shared store): it cannot keep artifacts.',
      )
  }

  /** Where this server keeps runs' artifacts and their bound; undefined when it keeps none. */
  get artifacts(): { store: ArtifactStore; maxBytes: number } | undefined {
    return this.#options.artifacts
  }

  /** How an eval's runs sign and bound their webhooks, as this server's runs do; undefined without a key. */
  get webhookSigning(): WebhookSigning | undefined {
    return this.#options.webhooks?.signing
  }

  get queueing(): boolean {
    return this.#admission.queueing
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

  /** Traces runs and evals' runs (OTEL_*); absent: none. */
  get tracer(): Tracer | undefined {
    return this.#options.tracer
  }

  /** Where runs' profiles are kept (the routes of /v1/profiles); absent: runs cannot name one. */
  get profiles(): ProfileStore | undefined {
    return this.#options.profiles
  }

  /** Runs executing here: runs and evals' runs alike. */
  get liveCount(): number {
    return this.#live.size + this.evals.liveRuns
  }

  get maxRuns(): number {
    return this.#options.maxRuns
  }

  /** Where runs keep their steps' files (a folder, or the shared store), when they keep any. */
  get stepFiles(): StepFileStore | undefined {
    const settings = this.#options.screenshots
    return settings && (settings.files ?? folderStepFiles(settings.dir))
  }

  /** Where runs keep their downloads (their folder, or the shared store); undefined when this server keeps none. */
  get downloads(): DownloadStore | undefined {
    return this.#options.downloads
  }

  /**
   * Starts a run, or queues it (SEXTANT_QUEUE) when every slot is taken; its
   * id either way. Throws ModelConfigError, TooManyRunsError, QueueFullError
   * or ShuttingDownError before anything starts.
   */
  start(request: RunRequest): Promise<string> {
    return this.#admission.start(request)
  }

  /** Slots for an eval's runs, from the runs' own (see RunAdmission.takeSlots); throws TooManyRunsError or ShuttingDownError. */
  takeEvalSlots(count: number): RunSlot[] {
    return this.#admission.takeSlots(count)
  }

  /** An eval's run's event, for the metrics as a run's; never lets an error into the eval. */
  observe(event: AgentEvent): void {
    try {
      this.#options.observe?.(event)
    } catch (error) {
      this.#options.log.warn({ err: error }, 'an observer of run events failed')
    }
  }

  /** A run's events so far (live here, or stored); undefined when there is no such run. */
  async events(runId: string): Promise<AgentEvent[] | undefined> {
    const live = this.#live.get(runId)
    if (live) return live.eventsSoFar()
    if (!(await this.#options.store.getRun(runId))) return undefined
    return this.#options.store.events(runId)
  }

  get(runId: string): LiveRun | undefined {
    return this.#live.get(runId)
  }

  /** The run as it is now: live from memory, else from the store. */
  async view(runId: string): Promise<StoredRun | undefined> {
    return this.#live.get(runId)?.snapshot() ?? (await this.#options.store.getRun(runId))
  }

  /** The run's events after `afterSeq`, then each new one until `done`, wherever it runs. */
  follow(runId: string, afterSeq: number, signal: AbortSignal): AsyncGenerator<StreamEvent, void, undefined> {
    return this.#control.follow(runId, afterSeq, signal)
  }

  /** Aborts a run, here or elsewhere, and answers its final state (see RunControl.abort). */
  abort(runId: string): Promise<StoredRun | undefined> {
    return this.#control.abort(runId)
  }

  /** Delivers a confirmation or an answer to the run waiting for it (see RunControl.reply). */
  reply(message: ReplyMessage): Promise<ReplyOutcome> {
    return this.#control.reply(message)
  }

  /** Stops accepting runs, aborts the live ones and waits (bounded) until they have ended and are stored. */
  async shutdown(waitMs = 8000): Promise<void> {
    this.#admission.close()
    this.#ownership.detach()
    const runs = this.#live.all()
    for (const run of runs) run.abort()
    const evals = this.evals.all()
    for (const live of evals) live.abort()
    await settlesWithin(
      Promise.all([...runs.map((run) => run.finished), ...evals.map((live) => live.finished)]),
      waitMs,
    )
    await settlesWithin(this.#launcher.flush(), waitMs)
    await this.#launcher.close()
    this.#ownership.stop()
  }
}

/** With a shared store and the fleet's secret: a run another server runs streams its model text here from that server. */
function ownerTextOf(
  store: RunStore,
  secret: string | undefined,
  self: RunOwner,
): { ownerText?: (runId: string, signal: AbortSignal) => AsyncIterable<AgentEvent> } {
  if (!isSharedStore(store) || secret === undefined) return {}
  return {
    ownerText: async function* (runId, signal) {
      const url = await store.ownerUrl(runId)
      if (url !== undefined && url !== self.url && !ownerRefusal(url))
        yield* readOwnerText(url, runId, secret, signal)
    },
  }
}
