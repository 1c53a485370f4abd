/** The run's public options and summary: what a caller of runAgent passes in and gets back. */
import type { Tracer } from '@opentelemetry/api'
import type { LanguageModel } from 'ai'
import type { BrowserSession, BrowserSessionFactory } from '../../browser/browser-session.ts'
import type { ProxySettings } from '../../browser/network/upstream-proxy.ts'
import type { ArtifactSettings } from '../../browser/session/artifacts/artifact-settings.ts'
import type { ContextSettings } from '../../browser/session/context-settings.ts'
import type { DoneReason, RunResult, Usage } from '../../events/events.ts'
import type { Logger } from '../../log.ts'
import type { PriceTable } from '../../model/prices.ts'
import type { Recording, ReplayStats } from '../../recording/schema.ts'
import type { SecretsInput } from '../../secrets/secrets.ts'
import type { AnyTool } from '../../tool.ts'
import type { ArtifactStore, DownloadStore } from '../../util/run-downloads.ts'
import type { StepFileStore } from '../../util/step-files.ts'
import type { WebhookSettings } from '../../webhooks/run-webhook.ts'
import type { PolicyRule } from '../calls/call-policy.ts'
import type { HandoverDesk } from '../handover/handover-desk.ts'
import type { OutputSchema } from '../output/output-schema.ts'
import type { StuckDetector } from '../stuck/stuck-detector.ts'
import type { ProfileSave, RunProfiles } from './profile-save.ts'

export type { DoneReason } from '../../events/events.ts'

export interface ConfirmationRequest {
  runId: string
  callId: string
  tool: string
  input: unknown
  reason: string
  expiresAt: Date
}

export interface Question {
  runId: string
  questionId: string
  question: string
}

export interface RetryOptions {
  /** Retries after the first attempt (default 3). */
  maxRetries: number
  baseDelayMs: number
  maxDelayMs: number
}

export interface CompactionOptions {
  /** Estimated prompt tokens above which older steps are summarized (default 24 000). */
  thresholdTokens: number
  /** Steps kept verbatim after compaction (default 4). */
  keepRecentSteps: number
  /** Consecutive failed compactions after which no more are tried (default 3). */
  maxFailures: number
  /** Model for summaries; the run's model when absent. */
  model?: LanguageModel
}

/** Answers a confirmation request; true approves the call. */
export type ConfirmCallback = (request: ConfirmationRequest, signal: AbortSignal) => Promise<boolean>

/** A run's options; `Data` is the type of `result.data`, inferred from a zod `output` schema. */
export interface RunOptions<Data = unknown> {
  /** The task; may be left out when `replay` is given (the recording's task is used). */
  task?: string
  /**
   * The shape of the data the run returns: a zod schema (then `result.data`
   * has its type) or a JSON Schema object. `done` then carries `data`, which
   * must match when `success` is true; the model sees why it does not and may
   * try twice more, then the run ends `error`. The data is in `result.data`.
   */
  output?: OutputSchema<Data>
  /**
   * An AI SDK language model. The server and CLI resolve "provider/model"
   * strings into one. Needed unless `replay` is given: a replay without one
   * makes no model call, and ends with `error` where the page has changed.
   */
  model?: LanguageModel
  /** Replays a recording (see `recordingOf`) without the model, healing changed steps with it when there is one. */
  replay?: Recording
  /**
   * How long a replay waits for a recorded element to appear, and for a
   * replayed step's expectation to hold, before it calls the step changed
   * (default 8000 ms). Shorter fails faster on a page that really changed;
   * too short calls a slow page changed and heals it at a model's cost.
   */
  replayWaitMs?: number
  /** Values of the task's and the recording's `{{name}}` templates. */
  variables?: Record<string, string>
  /** Name reported in run_started; derived from the model when absent. */
  modelName?: string
  runId?: string
  startUrl?: string
  /** Steps before the run ends with max_turns (default 40). */
  maxTurns?: number
  /** Total tokens after which the run ends with budget_exceeded. */
  maxSessionTokens?: number
  /**
   * Dollars (the model's price times its tokens, children's included) after
   * which the run ends with budget_exceeded. A run whose model has no price is
   * refused (RunLimitError): its cost could not be counted.
   */
  maxCostUsd?: number
  /**
   * Milliseconds of wall-clock time after which the run ends with
   * budget_exceeded, whatever it is waiting for (model, person, confirmation);
   * its children end with it.
   */
  maxDurationMs?: number
  /** Hosts the run's browser may reach: `host` (every port), `host:port`, `*.host` (it and its subdomains). */
  allowedDomains?: string[]
  /** Refuse private, loopback and link-local addresses too (checked on the resolved address). */
  blockPrivateNetworks?: boolean
  /**
   * A proxy the run's traffic leaves through; the run's network guard stays in front of it.
   * Its credentials are scrubbed like secrets and never stored.
   */
  proxy?: ProxySettings
  /**
   * The browser context the run asks for (device, viewport, locale, time zone, geolocation, permissions,
   * colour scheme, user agent, headers, init scripts), behind the same network guard.
   */
  browserContext?: ContextSettings
  /**
   * Told when the run ends, and when it needs a person: a POST signed as the
   * Standard Webhooks specification says, retried with backoff in the
   * background (runAgent does not wait for it). A refused URL (cloud metadata,
   * loopback unless `hosts` names it) throws before the run starts.
   */
  webhook?: WebhookSettings
  /**
   * A W3C traceparent the run's trace nests under, over the caller's active
   * OpenTelemetry context (the parent otherwise). A malformed one starts a new trace.
   */
  traceparent?: string
  /**
   * Traces the run (a span for it, its steps, model calls and actions; see
   * telemetry/run-spans.ts). Default: `@opentelemetry/api`'s global tracer,
   * a no-op unless the embedding process registered a tracer provider.
   */
  tracer?: Tracer
  /**
   * Values the model never sees: `{ name: value }` or `{ name: { value, domains } }`.
   * The model writes `<secret>name</secret>` in `type`'s text, and nowhere else (a
   * placeholder in any other input of a browser action is refused); `type` puts the
   * value into the field at the last moment (only on the secret's domains, when given). Every event, log line and prompt is scrubbed of the values.
   */
  secrets?: SecretsInput
  /**
   * A saved browser state to start from (cookies, local storage, IndexedDB;
   * only of sites `allowedDomains` lets the run reach), saved back when the run
   * ends as `profileSave` says. Needs `profiles`, where it is kept.
   */
  profile?: string
  /** When the run saves its profile back (default `success`: only after `done({ success: true })`). */
  profileSave?: ProfileSave
  /** Where profiles are kept (the server and CLI pass their store's). */
  profiles?: RunProfiles
  /** Bound on one event's JSON (default 256 KB): longer texts are cut, with a warning. */
  maxEventBytes?: number
  /** A download larger than this is cancelled, with a warning (default 50 MB). */
  maxDownloadBytes?: number
  /** Where each download is kept besides the browser's folder: a server on PostgreSQL keeps them in the shared store. */
  downloads?: DownloadStore
  /**
   * A Playwright trace, a video and a HAR of the run, kept in `artifactStore` when the run's browser closes
   * (secrets scrubbed; a video is refused with secrets). Off by default.
   */
  artifacts?: ArtifactSettings
  /** Where the artifacts are kept (`folderArtifacts(dir)`, or a server's shared store); needed with `artifacts`. */
  artifactStore?: ArtifactStore
  /** An artifact larger than this is not kept, with a warning (default 100 MB). */
  maxArtifactBytes?: number
  /**
   * The run's browser: a session, or a factory that opens one for this run.
   * Absent: a local headless Chromium is launched for the run and closed after it.
   * A factory's or the run's own browser that dies mid-run is replaced once
   * (a session passed in is the caller's: its death ends the run).
   * `null`: no browser at all (only the non-browser tools).
   */
  browser?: BrowserSession | BrowserSessionFactory | null
  /**
   * Told the run's browser session each time it changes: when it opens, when
   * a dead one is replaced, and `undefined` before it closes. A caller that
   * shows the page live, or lets a person drive it, reaches it through this.
   */
  onBrowser?: (browser: BrowserSession | undefined) => void
  /** Extra tools (a tool with an existing name replaces it) and tool names to remove. */
  tools?: { add?: AnyTool[]; remove?: string[] }
  /** Rules deciding allow / confirm / deny per call; first match wins. */
  policy?: PolicyRule[]
  /** Answers a confirmation. Without it, calls that need confirmation are denied by policy. */
  confirm?: ConfirmCallback
  /** How long a confirmation may wait before it counts as denied (default 120 000 ms). */
  confirmationTimeoutMs?: number
  /** Answers ask_user. Without it, ask_user is not offered to the model. */
  askUser?: (question: Question, signal: AbortSignal) => Promise<string>
  /**
   * Lets a person take the run's browser: the caller's takeOver() pauses the
   * run at its next step boundary and handBack() resumes it; the model may ask
   * for a person with `hand_over`. Make one per run with createHandoverDesk().
   * Without it, hand_over is not offered and a replayed hand_over step ends the run with `error`.
   */
  handover?: HandoverDesk
  /** The caller's signal; aborting it aborts the run. */
  signal?: AbortSignal
  retry?: Partial<RetryOptions>
  compaction?: Partial<CompactionOptions>
  /**
   * Stuck detection and recovery: a factory that makes the detector for this
   * run (a detector holds one run's escalation state, so each run needs its
   * own), e.g. `() => createStuckDetector({ maxStuckSteps: 10 })`. Absent: the
   * default detector. `false` turns it off.
   */
  stuck?: (() => StuckDetector) | false
  /** Consecutive unusable model outputs before the run ends with error (default 3). */
  maxInvalidOutputs?: number
  /**
   * After an abort, how long the run waits for a tool call that ignores the
   * signal before it names the call in an `abort_deadline` warning and ends
   * anyway (default 3 000 ms). The call itself cannot be stopped; only the wait
   * for it is cut.
   */
  abortDeadlineMs?: number
  /**
   * Keep a JPEG of each step's viewport at `<dir>/<runId>/steps/<n>.jpg` (the
   * `observation` event carries its URL). Absent: no files are written.
   */
  screenshots?: ScreenshotSettings
  /**
   * Show the model each step's screenshot next to the page view (default
   * false). `{ labels: true }` also marks each on-screen element of the page
   * view with its ref on the model's copy of the picture (the kept screenshot
   * stays clean).
   */
  vision?: boolean | { labels?: boolean }
  /**
   * Lets the model split its task with `dispatch_agent`: each sub-task runs as a
   * child run of its own, in its own browser context, on a budget carved out of
   * this run's turns and tokens. Absent: no sub-agents.
   */
  subAgents?: SubAgentOptions
  /** The caller's own rules for the run, appended to the system prompt (cached with it); kept in run_started and the recording. */
  instructions?: string
  /**
   * Prices for the run's cost, looked up by `modelName` (default: the table
   * shipped with Sextant). An unknown model's cost is null, never 0.
   */
  prices?: PriceTable
  log?: Logger
  /** Clock, for tests. */
  now?: () => number
}

export interface ScreenshotSettings {
  /** The runs folder: each run's screenshots go to `<dir>/<runId>/steps/` (unless `files` says otherwise). */
  dir: string
  /** Where step files go instead of `dir`: a server on PostgreSQL keeps them in the shared store. */
  files?: StepFileStore
  /** JPEG quality, 1–100 (default 70). */
  quality?: number
  /** Wider viewports are scaled down to this width (default 1280). */
  maxWidth?: number
}

export interface SubAgentOptions {
  /** The most sub-tasks one `dispatch_agent` call may start (1 or more). */
  max: number
  /** How deep children may nest: 1 (the default) lets this run dispatch and no child of it. */
  maxDepth?: number
  /** This run's depth: 0 for a run the caller started; set by the parent for each child. */
  depth?: number
}

export interface RunSummary<Data = unknown> {
  runId: string
  reason: DoneReason
  /** `data` is there when the run had an output schema and `done` gave data that matched it. */
  result: Omit<RunResult, 'data'> & { data?: Data }
  usage: Usage
  /** USD; null when the model's price is unknown. */
  costUsd: number | null
  steps: number
  durationMs: number
  /** A replay's tally. */
  replay?: ReplayStats
}
