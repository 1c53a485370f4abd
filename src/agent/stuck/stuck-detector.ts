import type { LanguageModel } from 'ai'
import type { PageObservation } from '../../browser/browser-session.ts'
import type { EventDraft, Usage } from '../../events/events.ts'
import type { ToolResult } from '../../tool.ts'
import type { StepRecord } from '../run/step-record.ts'

/** What the thinking state hands the detectors each step, after observing the page. */
export interface StuckInput {
  /** The step about to start (1-based). */
  step: number
  maxTurns: number
  task: string
  /** Completed steps, oldest first (compacted steps are absent). */
  history: StepRecord[]
  observation: PageObservation
  /** Failed actions so far in the run. */
  failedActions: number
  /** Runs a registered tool (recovery strategies use scroll, press_key, reload, navigate). */
  runTool(name: string, input: unknown): Promise<ToolResult>
  /** The run's model, for the supervisor. */
  model: LanguageModel
  signal: AbortSignal
}

/** The detectors' outcome for one step. */
export interface StuckVerdict {
  /** stuck_detected and recovery events. */
  events: EventDraft[]
  /** Observations for the model's prompt this step. */
  notes: string[]
  /** A new approach from the supervisor, kept in every later prompt. */
  guidance?: string
  /** End the run with reason loop_detected and this explanation. */
  end?: { text: string }
  /** A recovery changed the page: observe again before prompting (without evaluating again). */
  reobserve?: boolean
  /** Tokens the supervisor's model call used, to add to the run's usage. */
  usage?: Usage
}

/** Per-run detector: holds its escalation level between steps. */
export interface StuckDetector {
  evaluate(input: StuckInput): Promise<StuckVerdict>
}
