import type { LanguageModel } from 'ai'
import type {
  BrowserSession,
  BrowserSessionFactory,
  PageObservation,
  Screenshot,
} from '../browser/browser-session.ts'
import type { AgentEvent, DoneReason, EventDraft, RunResult, Usage } from '../events/events.ts'
import type { Logger } from '../log.ts'
import type { ModelPrice, PriceTable } from '../model/prices.ts'
import type { ElementTarget, RecordedStep, Recording, ReplayStats } from '../recording/schema.ts'
import type { RunSecrets, SecretsInput } from '../secrets/secrets.ts'
import type { AnyTool, ToolEvent, ToolResult } from '../tool.ts'
import type { PolicyRule } from './call-policy.ts'
import type { AgentOutput, OutputAccumulator } from './output.ts'
import type { StuckDetector } from './stuck/stuck-detector.ts'

export type { DoneReason } from '../events/events.ts'

// ── Public run options ───────────────────────────────────────────────────

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

export interface RunOptions {
  /** The task; may be left out when `replay` is given (the recording's task is used). */
  task?: string
  /**
   * An AI SDK language model. The server and CLI resolve "provider/model"
   * strings into one. Needed unless `replay` is given: a replay without one
   * makes no model call, and ends with `error` where the page has changed.
   */
  model?: LanguageModel
  /** Replays a recording (see `recordingOf`) without the model, healing changed steps with it when there is one. */
  replay?: Recording
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
  /** Hosts the run's browser may reach: `host` (every port), `host:port`, `*.host` (it and its subdomains). */
  allowedDomains?: string[]
  /** Refuse private, loopback and link-local addresses too (checked on the resolved address). */
  blockPrivateNetworks?: boolean
  /**
   * Values the model never sees: `{ name: value }` or `{ name: { value, domains } }`.
   * The model writes `<secret>name</secret>` in `type` or `execute_javascript`; the
   * browser action substitutes the value at the last moment (only on the secret's
   * domains, when given). Every event, log line and prompt is scrubbed of the values.
   */
  secrets?: SecretsInput
  /** Bound on one event's JSON (default 256 KB): longer texts are cut, with a warning. */
  maxEventBytes?: number
  /** A download larger than this is cancelled, with a warning (default 50 MB). */
  maxDownloadBytes?: number
  /**
   * The run's browser: a session, or a factory that opens one for this run.
   * Absent: a local headless Chromium is launched for the run and closed after it.
   * `null`: no browser at all (only the non-browser tools).
   */
  browser?: BrowserSession | BrowserSessionFactory | null
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
  /** Extra text appended to the system prompt. */
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
  /** The runs folder: each run's screenshots go to `<dir>/<runId>/steps/`. */
  dir: string
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

export interface RunSummary {
  runId: string
  reason: DoneReason
  result: RunResult
  usage: Usage
  /** USD; null when the model's price is unknown. */
  costUsd: number | null
  steps: number
  durationMs: number
  /** A replay's tally. */
  replay?: ReplayStats
}

// ── The state machine ────────────────────────────────────────────────────

/** A call the model asked for, waiting in the executing state's queue. */
export interface PendingCall {
  callId: string
  tool: string
  input: unknown
  /** Who asked for it (default: the model). */
  source?: 'model' | 'replay'
  /** The element it acts on, described durably (recorded at its start, or the recording's own). */
  target?: ElementTarget
}

/**
 * The prompt of one step: sent to the model, and sent again as is when the
 * call is retried. The user message is `stable` then `volatile` (see
 * buildStepPromptParts): the system prompt and `stable` are a byte-identical
 * prefix of the next step's prompt, which the provider's cache can serve.
 */
export interface ModelPrompt {
  system: string
  stable: string[]
  volatile: string
  /** The step's screenshot, sent next to the page view when vision is on; only ever the latest. */
  image?: Screenshot
}

/** Answers a confirmation request; true approves the call. */
export type ConfirmCallback = (request: ConfirmationRequest, signal: AbortSignal) => Promise<boolean>

/** A new step begins: observe, check for loops, assemble the prompt, start the model call. */
export interface ThinkingState {
  type: 'thinking'
}

/** A model call failed and will be retried after `delayMs`, with the same step and prompt. */
export interface BackoffState {
  type: 'backoff'
  /** The attempt the retry will be (2 for the first retry). */
  attempt: number
  delayMs: number
  prompt: ModelPrompt
}

/** The model's response arrives, one part per transition. */
export interface StreamingState {
  type: 'streaming'
  stream: ModelStream
  output: OutputAccumulator
  /** 1 for the first try of this step's model call. */
  attempt: number
  /** Kept for a retry, which sends the same prompt again. */
  prompt: ModelPrompt
}

/** The next queued call is checked: does its tool exist, does policy allow it? */
export interface StartCallState {
  type: 'executing'
  phase: 'start'
  queue: PendingCall[]
}

/** A call that passed its checks (and its confirmation, if it needed one): its tool is resolved, ready to run. */
export interface ReadyCallState {
  type: 'executing'
  phase: 'ready'
  call: PendingCall
  tool: AnyTool
  queue: PendingCall[]
}

/** A call is running; the events it emits are yielded until its result arrives. */
export interface AwaitingResultState {
  type: 'executing'
  phase: 'awaiting-result'
  call: PendingCall
  queue: PendingCall[]
  running: RunningCall
}

export type ExecutingState = StartCallState | ReadyCallState | AwaitingResultState

/** A `dispatch_agent` call passed its checks: its children are about to start. */
export interface StartDispatchState {
  type: 'dispatching'
  phase: 'start'
  call: PendingCall
  queue: PendingCall[]
}

/** Children are running; the events they emit are forwarded until the last one ends. */
export interface AwaitingChildrenState {
  type: 'dispatching'
  phase: 'awaiting-children'
  call: PendingCall
  queue: PendingCall[]
  children: RunningChildren
}

export type DispatchingState = StartDispatchState | AwaitingChildrenState

/** A call waits for the caller's approval; only entered when there is someone to ask. */
export interface ConfirmingState {
  type: 'confirming'
  call: PendingCall
  tool: AnyTool
  queue: PendingCall[]
  reason: string
  expiresAt: number
  confirm: ConfirmCallback
}

/** The next call comes from the recording being replayed, not from a model. */
export interface ReplayingState {
  type: 'replaying'
}

/** Older steps are being summarized before the next step. */
export interface CompactingState {
  type: 'compacting'
}

export interface DoneState {
  type: 'done'
  reason: DoneReason
  result: RunResult
}

export type AgentState =
  | ThinkingState
  | BackoffState
  | StreamingState
  | ExecutingState
  | ConfirmingState
  | DispatchingState
  | CompactingState
  | ReplayingState
  | DoneState

export type StateType = AgentState['type']

/** A child run's event as its parent's stream carries it: the parent stamps its own `seq` on it. */
export type ForwardedEvent = AgentEvent & { parentRunId: string; childIndex: number; depth: number }

/** What a transition emits: drafts the loop stamps as this run's, and children's events it forwards. */
export type Effect = EventDraft | ForwardedEvent

export interface TransitionResult {
  next: AgentState
  effects: Effect[]
}

/** One sub-task of a dispatch, with the budget carved out for it. */
export interface ChildSpec {
  index: number
  task: string
  startUrl?: string
  maxTurns: number
  maxSessionTokens?: number
  /** Start from a copy of the parent's cookies and storage (its login). */
  shareSession?: boolean
}

export interface ChildOutcome {
  spec: ChildSpec
  summary: RunSummary
}

/** Children running for one dispatch: their events merged into one queue, and their ends. */
export interface RunningChildren {
  startedAt: number
  /** Forwarded events not yet yielded. */
  take(): ForwardedEvent[]
  /** Resolves once an event is waiting or every child has ended. */
  waitForEvent(): Promise<void>
  /** Every child's task and how it ended, in task order, once all have ended (never rejects). */
  readonly ended: Promise<ChildOutcome[]>
  /** True once every child has ended and its events were queued. */
  readonly isEnded: boolean
}

/** How this run starts children: set when the caller enabled sub-agents. */
export interface SubAgentRunner {
  max: number
  maxDepth: number
  depth: number
  /** A child's run, inheriting this run's limits and callbacks; its events are the child's own. */
  start(spec: ChildSpec, signal: AbortSignal): AsyncGenerator<AgentEvent, RunSummary, undefined>
}

/** One part of the model's response stream, as the streaming state consumes it. */
export type ModelStreamPart =
  | { type: 'text'; text: string }
  | { type: 'tool-input'; delta: string }
  | { type: 'tool-call'; toolName: string; input: unknown; rawInput: string }
  | { type: 'finish'; usage: Usage }
  | { type: 'error'; error: unknown }

export interface ModelStream {
  next(): Promise<IteratorResult<ModelStreamPart>>
  /** Stops the underlying request; idempotent. */
  cancel(): void
}

export interface RunningCall {
  startedAt: number
  /** Settles with the tool's result; rejects only with AbortError. */
  outcome: Promise<ToolResult>
  /** Events the tool emitted that have not yet been yielded. */
  events: ToolEventQueue
}

/** The events a running tool emits, waiting for the loop's next transition to yield them. */
export class ToolEventQueue {
  private pending: ToolEvent[] = []
  private wakeUp: (() => void) | undefined

  push(event: ToolEvent) {
    this.pending.push(event)
    this.wakeUp?.()
  }

  take(): ToolEvent[] {
    return this.pending.splice(0)
  }

  /** Resolves once an event is waiting (at once if one already is). */
  waitForEvent(): Promise<void> {
    if (this.pending.length > 0) return Promise.resolve()
    return new Promise((resolve) => {
      this.wakeUp = () => {
        this.wakeUp = undefined
        resolve()
      }
    })
  }
}

// ── The run's record: what handlers may update ───────────────────────────

/** One step: what the model saw, thought, did, and what happened. */
export interface StepRecord {
  step: number
  url: string
  fingerprint: string
  output?: AgentOutput
  action?: { tool: string; input: unknown }
  result?: { ok: boolean; text: string }
  usage?: Usage
}

export interface CompactedSummary {
  task: string
  progress: string
  keyData: string
  failedAttempts: string
  nextSteps: string
  /** Steps covered, 1..throughStep. */
  throughStep: number
}

export interface RunRecord {
  step: number
  history: StepRecord[]
  summary?: CompactedSummary
  /** Observations for the model's next prompt (budget warnings, denials, recoveries). */
  notes: string[]
  /** Guidance from the stuck supervisor, kept in every prompt once given. */
  guidance: string[]
  usage: Usage
  /** USD so far; null once any call could not be priced. */
  costUsd: number | null
  lastObservation?: PageObservation
  /** This step's screenshot, when one was taken (replaced, never kept, at every observation). */
  lastScreenshot?: Screenshot
  consecutiveInvalidOutputs: number
  failedActions: number
  waitedMs: number
  waitWarned: boolean
  compactionFailures: number
  consecutiveObserveFailures: number
  /** The tool call still in flight, named in the abort-deadline warning. */
  inFlight?: {
    label: string
    settled: Promise<unknown>
    /** Events it made that were not yielded when the run was aborted: yielded once it settles. */
    leftovers?: () => ForwardedEvent[]
  }
}

/** Where a replay is: its recording, the next step, and what healing is under way. */
export interface ReplayProgress {
  steps: RecordedStep[]
  /** The variables' values (the recording's defaults under the run's own). */
  values: Record<string, string>
  /** A recorded URL as the replay opens it (its origin moved to the run's start URL's). */
  rebase: (url: string) => string
  /** Index of the next recorded step. */
  next: number
  /** The recorded step just replayed, whose result and expectations are checked next. */
  pending?: number
  /** The recorded step the model is redoing, and why it could not be replayed. */
  healing?: { index: number; reason: string }
  /** Whether a model may heal (one is configured). */
  canHeal: boolean
  stats: ReplayStats
}

export interface AgentContext {
  runId: string
  /** Set when the run replays a recording. */
  replay?: ReplayProgress
  task: string
  startUrl?: string
  model: LanguageModel
  maxTurns: number
  maxSessionTokens?: number
  tools: Map<string, AnyTool>
  policy: PolicyRule[]
  confirm?: RunOptions['confirm']
  confirmationTimeoutMs: number
  askUser?: RunOptions['askUser']
  browser?: BrowserSession
  retry: RetryOptions
  compaction: CompactionOptions
  stuck?: StuckDetector
  maxInvalidOutputs: number
  systemPrompt: string
  /** The run's secrets (empty when it has none): revealed to tools, scrubbed from what the run writes. */
  secrets: RunSecrets
  screenshots?: ScreenshotSettings
  vision?: boolean
  /** The model's picture carries ref labels. */
  visionLabels?: boolean
  /** The run's model price; undefined when unknown (costs are then null). */
  price?: ModelPrice
  signal: AbortSignal
  log: Logger
  now: () => number
  /** Starts children for dispatch_agent; absent when the run may not dispatch. */
  subAgents?: SubAgentRunner
  /** Starts a model stream for a prompt; replaceable in tests. */
  startStream: (prompt: ModelPrompt, signal: AbortSignal) => ModelStream
  run: RunRecord
}
