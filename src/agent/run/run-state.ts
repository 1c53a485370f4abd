/** The states of a run's machine, and what they carry between transitions. */
import type { BrowserFailure, BrowserSession, Screenshot } from '../../browser/browser-session.ts'
import type { AgentEvent, DoneReason, EventDraft, RunResult, Usage } from '../../events/events.ts'
import type { FinishOutcome } from '../../model/finish-reasons.ts'
import type { BoxOffset, ElementTarget } from '../../recording/schema.ts'
import type { AnyTool, ToolResult } from '../../tool.ts'
import type { ToolEventQueue } from '../calls/tool-event-queue.ts'
import type { Takeover } from '../handover/handover-desk.ts'
import type { OutputAccumulator } from '../output/output.ts'
import type { ConfirmCallback, RunSummary } from './run-options.ts'

/** A call the model asked for, waiting in the executing state's queue. */
export interface PendingCall {
  callId: string
  tool: string
  input: unknown
  /** Who asked for it (default: the model). */
  source?: 'model' | 'replay'
  /** The element it acts on, described durably (recorded at its start, or the recording's own). */
  target?: ElementTarget
  /** The element a `drag` drops onto, described durably (recorded at its start, or the recording's own). */
  dropTarget?: ElementTarget
  /** A coordinate action's point in `target`'s box (and its end's in `dropTarget`'s): see BoxOffsetSchema. */
  offset?: BoxOffset
  dropOffset?: BoxOffset
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

/** The run's browser is opened (or reached): every run's first state, so an abort there ends it like anywhere else. */
export interface OpeningState {
  type: 'opening'
}

/** The browser a run uses, and whether the run opened it (and so closes it when it ends). */
export interface OpenedBrowser {
  browser: BrowserSession
  owned: boolean
}

/** The run's browser died between steps: it is replaced once, at the page the model last saw. */
export interface RestartingBrowserState {
  type: 'restarting_browser'
  failure: BrowserFailure
}

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
  /** The provider's finish reason when it is an outcome (a refusal, a block, a cut-off). */
  outcome?: FinishOutcome
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

/**
 * The next call comes from the recording being replayed, not from a model:
 * `check` looks at what the step just replayed achieved and picks the next
 * one; `step` replays it, a new step of the run (counted against maxTurns,
 * like a model's).
 */
export type ReplayingState = ReplayCheckState | ReplayStepState

export interface ReplayCheckState {
  type: 'replaying'
  phase: 'check'
}

export interface ReplayStepState {
  type: 'replaying'
  phase: 'step'
  /** Index of the recorded step to replay. */
  index: number
}

/** A replay with an output schema has replayed its steps: one model call reads the data off the final page. */
export interface ExtractingState {
  type: 'extracting'
}

/**
 * Who wanted a person at the browser, and where the run goes once they hand
 * back: the model's `hand_over` call (finished with what happened), or a
 * person's own takeover at a step boundary (the step it held back).
 */
export type HandoverCause =
  | { by: 'model'; call: PendingCall; queue: PendingCall[] }
  | { by: 'user'; resume: ThinkingState | ReplayStepState }

/** A person is asked for (phase start: takeover_started), then has the browser until hand-back, timeout or abort. */
export type HandingOverState =
  | { type: 'handing_over'; phase: 'start'; cause: HandoverCause }
  | {
      type: 'handing_over'
      phase: 'awaiting-hand-back'
      cause: HandoverCause
      /** What the person is asked to do: the model's reason, checked as the takeover starts. */
      reason?: string
      takeover: Takeover
      startedAt: number
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
  | OpeningState
  | RestartingBrowserState
  | ThinkingState
  | BackoffState
  | StreamingState
  | ExecutingState
  | ConfirmingState
  | DispatchingState
  | HandingOverState
  | CompactingState
  | ReplayingState
  | ExtractingState
  | DoneState

export type StateType = AgentState['type']

/** A child run's event as its parent's stream carries it: the parent stamps its own `seq` on it. */
export type ForwardedEvent = AgentEvent & { parentRunId: string; childIndex: number; depth: number }

/** What a transition emits: drafts the loop stamps as this run's, and children's events it forwards. */
export type Effect = EventDraft | ForwardedEvent

/** One sub-task of a dispatch, with the budget carved out for it. */
export interface ChildSpec {
  index: number
  task: string
  startUrl?: string
  maxTurns: number
  maxSessionTokens?: number
  maxCostUsd?: number
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

/** One part of the model's response stream, as the streaming state consumes it. */
export type ModelStreamPart =
  | { type: 'text'; text: string }
  | { type: 'tool-input'; delta: string }
  | { type: 'tool-call'; toolName: string; input: unknown; rawInput: string }
  | { type: 'finish'; usage: Usage }
  | { type: 'outcome'; outcome: FinishOutcome }
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
