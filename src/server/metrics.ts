import { Counter, Gauge, Histogram, Registry } from 'prom-client'
import type { EndpointHealth } from '../browser/launch/endpoint-pool.ts'
import type { AgentEvent } from '../events/events.ts'
import { redactUrl } from '../redact.ts'
import type { EventWriterHooks } from '../store/event-writer.ts'
import { statusForReason } from '../store/run-store.ts'
import type { LiveViewHooks } from './runs/run-screencast.ts'

export interface MetricsSources {
  liveRuns(): number
  /** Runs waiting in the shared queue; absent without one. */
  queueDepth?: () => Promise<number>
  /** Remote browser endpoints; absent when Chromium is launched here. */
  browserHealth?: () => EndpointHealth[]
}

/** Where a run's current step is, from its events' own timestamps. */
interface StepClock {
  stepAt: number
  observedAt?: number
  modelAnswered: boolean
}

/**
 * This server's metrics in Prometheus' text format (GET /metrics), through
 * prom-client with a registry of its own (two servers in one process never
 * mix). Counters count what this server ran: sum them over servers. Times
 * come from the events' timestamps, so they are what clients saw.
 */
export class ServerMetrics {
  readonly #registry = new Registry()
  readonly #clocks = new Map<string, StepClock>()
  readonly #started: Counter
  readonly #finished: Counter<'status' | 'reason'>
  readonly #steps: Histogram
  readonly #model: Histogram
  readonly #tokens: Counter<'kind'>
  readonly #cost: Counter
  readonly #unpriced: Counter
  readonly #liveViewers: Gauge
  readonly #liveFrames: Counter
  readonly #takeovers: Counter<'by'>
  readonly #pageLog: Counter<'kind'>
  readonly #store: Record<'outages' | 'retries' | 'recoveries' | 'overflows' | 'refused', Counter>

  constructor(sources: MetricsSources) {
    const registers = [this.#registry]
    this.#started = new Counter({
      name: 'sextant_runs_started_total',
      help: "Runs started here, evals' runs included.",
      registers,
    })
    this.#takeovers = new Counter({
      name: 'sextant_takeovers_total',
      help: 'Times a person took over a run’s browser here: asked for by the model (hand_over) or not.',
      labelNames: ['by'],
      registers,
    })
    this.#pageLog = new Counter({
      name: 'sextant_page_log_entries_total',
      help: "What runs' pages reported: console errors and warnings, uncaught exceptions, failed and refused requests.",
      labelNames: ['kind'],
      registers,
    })
    this.#finished = new Counter({
      name: 'sextant_runs_finished_total',
      help: 'Runs that ended here, by status and reason.',
      labelNames: ['status', 'reason'],
      registers,
    })
    new Gauge({
      name: 'sextant_live_runs',
      help: "Runs executing here now, evals' runs included.",
      registers,
      collect() {
        this.set(sources.liveRuns())
      },
    })
    const queueDepth = sources.queueDepth
    if (queueDepth) {
      new Gauge({
        name: 'sextant_queue_depth',
        help: 'Runs waiting in the shared queue (SEXTANT_QUEUE), across all servers.',
        registers,
        async collect() {
          this.set(await queueDepth())
        },
      })
    }
    this.#steps = new Histogram({
      name: 'sextant_step_duration_seconds',
      help: 'One step of a run: observe, model, tools.',
      buckets: [0.5, 1, 2, 5, 10, 20, 30, 60, 120],
      registers,
    })
    this.#model = new Histogram({
      name: 'sextant_model_latency_seconds',
      help: "From a step's observation (or start) to the model's first output.",
      buckets: [0.25, 0.5, 1, 2, 4, 8, 15, 30, 60],
      registers,
    })
    this.#tokens = new Counter({
      name: 'sextant_tokens_total',
      help: 'Model tokens of the runs that ended here.',
      labelNames: ['kind'],
      registers,
    })
    this.#cost = new Counter({
      name: 'sextant_cost_usd_total',
      help: 'USD spent on the model by the runs that ended here, counting only runs whose price is known.',
      registers,
    })
    this.#unpriced = new Counter({
      name: 'sextant_runs_unpriced_total',
      help: "Runs that ended here at an unknown cost (the model's price is unknown): not in sextant_cost_usd_total.",
      registers,
    })
    const counter = (name: string, help: string) => new Counter({ name, help, registers })
    this.#liveViewers = new Gauge({
      name: 'sextant_live_viewers',
      help: 'Live views (GET /v1/runs/:id/live) open on this server now.',
      registers,
    })
    this.#liveFrames = counter(
      'sextant_live_frames_total',
      "Frames the runs' browsers made for live views here (one per frame, however many watch it).",
    )
    this.#store = {
      outages: counter('sextant_store_outages_total', 'Times the store stopped taking event writes.'),
      retries: counter('sextant_store_write_retries_total', 'Event writes that failed and were retried.'),
      recoveries: counter('sextant_store_recoveries_total', 'Times the store took event writes again.'),
      overflows: counter(
        'sextant_store_overflow_runs_total',
        'Runs stopped because too many of their events waited for the store.',
      ),
      refused: counter(
        'sextant_store_writes_refused_total',
        'Writes the store refused because another server ended or took over their run (fencing).',
      ),
    }
    const browserHealth = sources.browserHealth
    if (browserHealth) {
      const gauge = (name: string, help: string, value: (health: EndpointHealth) => number) =>
        new Gauge({
          name,
          help,
          labelNames: ['endpoint'],
          registers,
          collect() {
            this.reset()
            for (const { endpoint, health } of labelled(browserHealth()))
              this.set({ endpoint }, value(health))
          },
        })
      gauge('sextant_browser_endpoint_up', '1 while the endpoint is in use, 0 while it is left out.', (h) =>
        h.healthy ? 1 : 0,
      )
      gauge('sextant_browser_endpoint_sessions', 'Sessions open on the endpoint.', (h) => h.liveSessions)
      gauge(
        'sextant_browser_endpoint_failures',
        'Sessions the endpoint failed to open, since start.',
        (h) => h.failures,
      )
    }
  }

  get contentType(): string {
    return this.#registry.contentType
  }

  text(): Promise<string> {
    return this.#registry.metrics()
  }

  /** Counts the event writer's news of the store. */
  readonly storeWrites: EventWriterHooks = {
    onOutage: () => this.#store.outages.inc(),
    onRetry: () => this.#store.retries.inc(),
    onRecovered: () => this.#store.recoveries.inc(),
    onOverflow: () => this.#store.overflows.inc(),
    onFenced: () => this.#store.refused.inc(),
  }

  /** Counts live views and their frames. */
  readonly liveView: LiveViewHooks = {
    onViewers: (change) => this.#liveViewers.inc(change),
    onFrame: () => this.#liveFrames.inc(),
  }

  /** Takes every event of the runs of this server. */
  observe(event: AgentEvent): void {
    const at = Date.parse(event.at)
    const clock = this.#clocks.get(event.runId)
    switch (event.type) {
      case 'run_started':
        this.#started.inc()
        return
      case 'step_started':
        if (clock) this.#steps.observe((at - clock.stepAt) / 1000)
        this.#clocks.set(event.runId, { stepAt: at, modelAnswered: false })
        return
      case 'observation':
        if (clock) clock.observedAt = at
        for (const entry of event.pageLog?.console ?? []) this.#pageLog.inc({ kind: entry.level })
        for (const entry of event.pageLog?.network ?? [])
          this.#pageLog.inc({ kind: entry.refused === undefined ? 'failed_request' : 'refused_request' })
        if (event.pageLog?.omitted) this.#pageLog.inc({ kind: 'omitted' }, event.pageLog.omitted)
        return
      case 'text_delta':
      case 'reflection':
      case 'tool_call_start':
        if (clock && !clock.modelAnswered) {
          clock.modelAnswered = true
          // Without a browser a step has no observation: the model is asked as the step starts.
          this.#model.observe((at - (clock.observedAt ?? clock.stepAt)) / 1000)
        }
        return
      case 'takeover_started':
        this.#takeovers.inc({ by: event.by })
        return
      case 'takeover_ended':
        // A person's time is not the step's: the step's clock skips it.
        if (clock) clock.stepAt += event.durationMs
        return
      case 'done':
        if (clock) this.#steps.observe((at - clock.stepAt) / 1000)
        this.#clocks.delete(event.runId)
        this.#finished.inc({ status: statusForReason(event.reason), reason: event.reason })
        this.#tokens.inc({ kind: 'input' }, event.usage.inputTokens)
        this.#tokens.inc({ kind: 'output' }, event.usage.outputTokens)
        // A sub-agent's cost is in its parent's done (forwarded children never reach here): counted once.
        if (typeof event.costUsd === 'number') this.#cost.inc(event.costUsd)
        else this.#unpriced.inc()
        return
      default:
        return
    }
  }
}

/**
 * The `endpoint` label of each browser endpoint: its URL without credentials
 * (metrics pages are scraped and stored where secrets must not go). Two URLs
 * that differ only in their credentials would read alike and overwrite each
 * other's samples, so a repeat is numbered (`#2`).
 */
function labelled(healths: readonly EndpointHealth[]): { endpoint: string; health: EndpointHealth }[] {
  const seen = new Map<string, number>()
  return healths.map((health) => {
    const shown = redactUrl(health.url)
    const count = (seen.get(shown) ?? 0) + 1
    seen.set(shown, count)
    return { endpoint: count === 1 ? shown : `${shown}#${count}`, health }
  })
}
