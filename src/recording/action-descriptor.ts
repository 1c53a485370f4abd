import type { ToolEffect } from '../tool.ts'
import type { ElementTarget, RecordedStep } from './schema.ts'
import { oneLine } from './spec-text.ts'

/**
 * Everything the rest of Sextant needs to know of an action, declared in the
 * action's own file: policies read its effect, the recording its target, the
 * Playwright export its lines, stuck detection its role, the docs its row.
 * Nothing outside that file switches on the action's name; a new action is its
 * file plus one entry in the registry (agent/tools/actions.ts).
 */
export interface ActionDescriptor {
  name: string
  /** The one line the model reads of the action. */
  description: string
  /** What a call may do beyond the run, for policy rules; null: not a page action (rules by effect never match it). */
  effect: ToolEffect | null
  /** Offered only to a model that sees the screenshot (its points mean nothing otherwise). */
  visionOnly?: true
  /** Its row in docs/actions.md: the input as the docs write it, and what it does. */
  docs: { input: string; does: string }
  /**
   * How stuck detection reads a call that left the page unchanged: `observes`
   * (it reads, never a stall), `waits` (unchanged is expected while the page
   * loads), `changes` (it should have changed something).
   */
  stuck: 'observes' | 'waits' | 'changes'
  record: ActionRecording
  /** The step's lines in a `@playwright/test` spec. */
  playwright: (step: RecordedStep, spec: SpecWriter) => string[]
}

type Input = Record<string, unknown>

/** What a recording keeps of a call besides its input. */
export interface ActionRecording {
  /**
   * The element it acts on, described durably before it runs: `required` (a
   * step without one cannot be replayed), `optional`, or `none`.
   */
  element: 'required' | 'optional' | 'none'
  /** The ref of a second element the call names (a drag's drop element). */
  dropRef?: (input: Input) => unknown
  /** The screenshot points it acts at: where it starts (its target) and, for a drag, where it ends. */
  points?: (input: Input) => { start: unknown; end?: unknown }
  /** Text it types, looked for on the page afterwards. */
  typed?: (input: Input) => unknown
  /** Whether what it left on the page is recorded (`tool_call_result.outcome`): false for calls that change nothing. */
  outcome: boolean
}

/** What a descriptor's export writes with: its step's locator, text as literals, other elements' locators. */
export interface SpecWriter {
  /** The variable holding the step's target's locator, when it has one. */
  target: string | undefined
  /** A TypeScript expression for recorded text (variables and secrets stay parameters). */
  text: (value: string) => string
  /** The locator of another element the step names (a drag's drop element). */
  locate: (element: ElementTarget) => string
}

export type ActionRegistry = ReadonlyMap<string, ActionDescriptor>

/** The line of a step no spec can do (a question to the user, JavaScript the run ran). */
export function notExported(step: RecordedStep): string[] {
  return [`// ${step.tool} is not exported: ${oneLine(JSON.stringify(step.input))}`]
}

/** The export of an action on an element: its lines when the step has a target, else not exported. */
export function onTarget(lines: (target: string, step: RecordedStep, spec: SpecWriter) => string[]) {
  return (step: RecordedStep, spec: SpecWriter): string[] =>
    spec.target ? lines(spec.target, step, spec) : notExported(step)
}

/** A recorded input's string field, or '' when it has none. */
export function stringField(input: Input, key: string): string {
  const value = input[key]
  return typeof value === 'string' ? value : ''
}
