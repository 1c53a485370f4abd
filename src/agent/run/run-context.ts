/** What a state handler receives (the context, with the run's record) and what it returns. */
import type { LanguageModel } from 'ai'
import type { BrowserSession, PageObservation, Screenshot } from '../../browser/browser-session.ts'
import type { AgentEvent, EventDraft, Usage } from '../../events/events.ts'
import type { Logger } from '../../log.ts'
import type { ModelPrice } from '../../model/prices.ts'
import type { RecordedStep, ReplayStats } from '../../recording/schema.ts'
import type { RunSecrets } from '../../secrets/secrets.ts'
import type { AnyTool } from '../../tool.ts'
import type { PolicyRule } from '../calls/call-policy.ts'
import type { HandoverDesk } from '../handover/handover-desk.ts'
import type { ResolvedOutput } from '../output/output-schema.ts'
import type { StuckDetector } from '../stuck/stuck-detector.ts'
import type {
  CompactionOptions,
  RetryOptions,
  RunOptions,
  RunSummary,
  ScreenshotSettings,
} from './run-options.ts'
import type {
  AgentState,
  ChildSpec,
  Effect,
  ForwardedEvent,
  ModelPrompt,
  ModelStream,
  OpenedBrowser,
} from './run-state.ts'
import type { StepRecord } from './step-record.ts'

export interface TransitionResult {
  next: AgentState
  effects: Effect[]
  /** What the transition changes in the run's bookkeeping; the loop applies it (applyUpdate). */
  update?: RunUpdate
}

/**
 * The bookkeeping one transition changes, as new values: a handler reads the
 * run record and the replay's cursor and says what they become; the loop
 * applies that in one place (run/apply-update.ts) once the transition has
 * returned. A transition cut short by an abort changes nothing.
 */
export interface RunUpdate {
  /** New values of the record's fields; not its browser (`browser` below also equips the context), nor inFlight (see RunRecord). */
  run?: Partial<Omit<RunRecord, 'inFlight' | 'browser'>>
  replay?: Partial<Pick<ReplayProgress, 'next' | 'pending' | 'healing' | 'stats'>>
  /** The browser the opening (or restarting_browser) state opened: the context's browser, tools and prompt follow it. */
  browser?: OpenedBrowser
}

/** How this run starts children: set when the caller enabled sub-agents. */
export interface SubAgentRunner {
  max: number
  maxDepth: number
  depth: number
  /** A child's run, inheriting this run's limits and callbacks; its events are the child's own. */
  start(spec: ChildSpec, signal: AbortSignal): AsyncGenerator<AgentEvent, RunSummary, undefined>
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
  /** This step's screenshot, when the model sees it (vision; replaced, never kept, at every observation). */
  lastScreenshot?: Screenshot
  /**
   * The last step's screenshot, still being taken and written while the model
   * thinks. The next step, or the run's end before `done`, waits for it and
   * emits its warnings: none is lost, and no file is written after `done`.
   */
  pendingScreenshot?: PendingScreenshot
  consecutiveInvalidOutputs: number
  /** `done` calls whose data did not match the output schema. */
  rejectedData: number
  failedActions: number
  waitedMs: number
  waitWarned: boolean
  /** The model's server was seen to cut a step's prompt, and the run was told (model-calls/context-check.ts). */
  contextWarned: boolean
  /** The limits whose once-a-run warning the model has read (run/run-limits.ts). */
  warnedLimits: readonly string[]
  compactionFailures: number
  consecutiveObserveFailures: number
  /** Fresh browsers the run was given after its own died (see the restarting_browser state). */
  browserRestarts: number
  /** Hand-overs the model asked for (counted against the desk's maxHandovers; a person's takeovers are not). */
  modelHandovers: number
  /** The browser the run opened or was given: closed when the run ends, if the run opened it. */
  browser?: OpenedBrowser
  /**
   * The tool call still in flight, named in the abort-deadline warning. Set by
   * the handler itself, not through its update: the loop must see a call the
   * moment it starts, since a transition cut short by an abort returns nothing.
   */
  inFlight?: {
    label: string
    settled: Promise<unknown>
    /** Events it made that were not yielded when the run was aborted: yielded once it settles. */
    leftovers?: () => ForwardedEvent[]
  }
}

/** A step's screenshot under way. */
export interface PendingScreenshot {
  /** Settles once its files are written (or could not be), with the warnings it leaves; never rejects. */
  settled: Promise<EventDraft[]>
  /** Stops it: the capture is abandoned and no file is written from then on. */
  stop(): void
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
  /** RunOptions.replayWaitMs, when the run's caller set it. */
  replayWaitMs?: number
  task: string
  startUrl?: string
  model: LanguageModel
  maxTurns: number
  maxSessionTokens?: number
  /** Dollars after which the run ends with budget_exceeded (its model is priced: see run/run-limits.ts). */
  maxCostUsd?: number
  /** The wall-clock bound (its timer ends the run); here so the model can be warned as it nears. */
  maxDurationMs?: number
  /** When the run started (`now()`), for the time it has left. */
  startedAt: number
  tools: Map<string, AnyTool>
  policy: PolicyRule[]
  confirm?: RunOptions['confirm']
  confirmationTimeoutMs: number
  askUser?: RunOptions['askUser']
  /** Where a person takes the browser over and hands it back; absent, nobody can. */
  handover?: HandoverDesk
  browser?: BrowserSession
  retry: RetryOptions
  compaction: CompactionOptions
  stuck?: StuckDetector
  maxInvalidOutputs: number
  /** The run's output schema: `done` carries data that must match it. */
  output?: ResolvedOutput
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
  /** How the opening state reaches the run's browser; absent, the run has none (a hand-built context). */
  browserSetup?: BrowserSetup
}

/** What of the context follows from the run's browser: the tools it brings, and the prompt that lists them. */
export type BrowserParts = Pick<AgentContext, 'browser' | 'tools' | 'systemPrompt' | 'startStream'>

export interface BrowserSetup {
  /** The run's browser, through the factory or launcher its options name, at `startUrl` (default: the run's). */
  open(signal: AbortSignal, startUrl?: string): Promise<OpenedBrowser | undefined>
  /** The context's parts for the browser the run got (the run's tools and prompt). */
  equip(browser: BrowserSession | undefined): BrowserParts
  /** The run is done with its browser: whoever watched it through `onBrowser` lets go, before it closes. */
  release(): void
  close(browser: BrowserSession): Promise<void>
  /** Saves the run's profile from `browser` as the run's ending calls for; present when the run has a profile. */
  saveProfile?(browser: BrowserSession, ended: AgentState): Promise<EventDraft[]>
  /** Keeps the run's artifacts from `browser`, closing its context; present when the run asked for some. */
  keepArtifacts?(browser: BrowserSession): Promise<EventDraft[]>
}
