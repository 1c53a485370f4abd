import type { z } from 'zod'

/**
 * The tool contract shared by the agent's own tools and the browser actions.
 * A tool never throws across the loop: whatever it throws becomes a failed
 * result that the model reads.
 */

export interface ToolResult {
  ok: boolean
  /** Short text for the model: "Clicked button 'Save'." */
  text: string
  /** Set by `done`: the run ends with this result (its `data` checked first against the run's output schema). */
  final?: { success: boolean; text: string; data?: unknown }
  /** Milliseconds the tool deliberately waited, for the run's wait accounting. */
  waitedMs?: number
  /**
   * Input fields whose values must not be shown again, found out while running
   * (text typed into a password field): the run's history and later prompts
   * show them masked.
   */
  maskInput?: string[]
  /** The run's secrets the call typed through its `secretInput`, by name (what a recording keeps of where each went). */
  typedSecrets?: string[]
}

/**
 * Reveals a run's secrets to a tool at the last moment. The model writes
 * `<secret>name</secret>`; the tool asks for the value only for the page it
 * is about to act on, and never puts the value in its result.
 */
export interface SecretRevealer {
  /**
   * `text` with each placeholder replaced by its value when every secret it
   * names may be used on `pageUrl` (a scoped secret only on its domains);
   * else the reason to give the model.
   */
  reveal(
    text: string,
    pageUrl: string,
  ): { ok: true; text: string; names: string[] } | { ok: false; reason: string }
  /** Whether `text` shows a secret's value (so a picture of it must be blanked). */
  shows(text: string): boolean
}

/** Events a tool may emit while it runs (a question before waiting for its answer). */
export type ToolEvent =
  | { type: 'question'; questionId: string; question: string }
  | { type: 'answer'; questionId: string; answer: string }
  | { type: 'warning'; code: string; message: string }

export interface ToolContext {
  /** The run's one cancellation signal. Every wait inside a tool must honour it. */
  signal: AbortSignal
  runId: string
  step: number
  callId: string
  emit(event: ToolEvent): void
  /** The run's secrets; absent when the run has none (placeholders are then typed as written). */
  secrets?: SecretRevealer
}

/**
 * What a call may do beyond the run, named as Playwright MCP's tools name it:
 * `readOnly` only looks (reads, scrolls, hovers), `destructive` may change a
 * page, a site or data (clicks, typing, navigation, scripts).
 */
export type ToolEffect = 'readOnly' | 'destructive'

export interface Tool<Input = unknown> {
  name: string
  description: string
  input: z.ZodType<Input>
  /** Declared by the browser actions; policy rules can match on it. Absent: not declared. */
  effect?: ToolEffect
  /** Whether a call needs the user's approval before it runs (policy rules may override). */
  requiresConfirmation?: boolean | ((input: Input) => boolean)
  /**
   * Input fields to mask in events, history and prompts before the call runs
   * (a `type` into a field the last page view showed as a password). The tool
   * knows its targets; the agent does not look at the page itself.
   */
  maskInput?: (input: Input) => string[]
  /**
   * The one input field a secret placeholder may be typed through (`type`'s
   * `text`). A browser action refuses a placeholder anywhere else in its input.
   */
  secretInput?: string
  execute(input: Input, ctx: ToolContext): Promise<ToolResult>
}

/** A tool whose input type has been erased, as held in a registry. */
// biome-ignore lint/suspicious/noExplicitAny: a registry holds tools of every input type; each validates its own input with its zod schema before execute sees it.
export type AnyTool = Tool<any>

export function defineTool<Schema extends z.ZodType>(definition: {
  name: string
  description: string
  input: Schema
  effect?: ToolEffect
  requiresConfirmation?: boolean | ((input: z.output<Schema>) => boolean)
  maskInput?: (input: z.output<Schema>) => string[]
  secretInput?: string
  execute(input: z.output<Schema>, ctx: ToolContext): Promise<ToolResult>
}): Tool<z.output<Schema>> {
  if (!/^[a-z][a-z0-9_]*$/.test(definition.name)) {
    throw new Error(
      `Tool name "${definition.name}" must be snake_case (a-z, 0-9, _), starting with a letter.`,
    )
  }
  return definition as Tool<z.output<Schema>>
}

export function ok(text: string): ToolResult {
  return { ok: true, text }
}

export function failed(text: string): ToolResult {
  return { ok: false, text }
}

export class AbortError extends Error {
  override name = 'AbortError'
  constructor(message = 'The run was aborted.') {
    super(message)
  }
}

export function isAbortError(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'ResponseAborted')
}

/** Resolves after `ms`, or rejects with AbortError as soon as the signal aborts; leaves no timer behind. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new AbortError())
      return
    }
    const onAbort = () => {
      clearTimeout(timer)
      reject(new AbortError())
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal.addEventListener('abort', onAbort, { once: true })
  })
}

/**
 * Rejects with AbortError when the signal aborts; the listener is removed when
 * `promise` settles. What `promise` does after that is no one's concern: its
 * rejection is handled here, or a call abandoned as its target closed (a CDP
 * send) would surface as an unhandled rejection.
 */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => {})
    return Promise.reject(new AbortError())
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new AbortError())
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}
