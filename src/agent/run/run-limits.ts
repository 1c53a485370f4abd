import type { DoneReason, RunResult } from '../../events/events.ts'
import type { ModelPrice } from '../../model/prices.ts'
import type { AgentContext } from './run-context.ts'
import type { AgentState, DoneState, ReplayStepState, ThinkingState } from './run-state.ts'

/**
 * A run's limits, as data: each entry says when the run is past it, the done
 * reason it then ends with, the words the caller gets (the result's text) and,
 * for a limit the model can see coming, the warning it reads as it nears.
 * The loop's guard walks the list between transitions; a new limit is one
 * more entry here (and its field on the run request).
 */
export interface RunLimit {
  name: string
  reason: DoneReason
  /** Whether the run, about to enter `next`, is past the limit. */
  reached(ctx: AgentContext, next: AgentState): boolean
  /** The done result's text: what stopped the run. */
  callerText(ctx: AgentContext): string
  /**
   * What the model reads at the start of `step` as the limit nears, if
   * anything; its warning event's code. `once`: read at most once a run.
   */
  warning?: { code: string; once?: boolean; at(ctx: AgentContext, step: number): string | undefined }
}

/** Steps left (this one included) at which the model is told to finish. */
const countdownAt = [5, 2]

/** The share of a budget used at which the model is warned, once a run. */
const warnAtShare = 0.8

/** A once-a-run warning when `share` of the limit is used: its used and capped amounts in words. */
function nearing(
  code: string,
  share: (ctx: AgentContext) => { used: number; cap: number } | undefined,
  words: (used: number, cap: number) => string,
): RunLimit['warning'] {
  return {
    code,
    once: true,
    at: (ctx) => {
      const amount = share(ctx)
      if (!amount || amount.used < amount.cap * warnAtShare) return undefined
      return `${words(amount.used, amount.cap)} ${finishNow}`
    },
  }
}

const finishNow =
  'When it runs out the run ends. Finish now if you can; otherwise call done with success: false and report what you found.'

export const runLimits: readonly RunLimit[] = [
  {
    name: 'maxSessionTokens',
    reason: 'budget_exceeded',
    reached: (ctx) => ctx.maxSessionTokens !== undefined && ctx.run.usage.totalTokens >= ctx.maxSessionTokens,
    callerText: (ctx) =>
      `Stopped: the run used ${ctx.run.usage.totalTokens} tokens, over its budget of ${ctx.maxSessionTokens}.`,
    warning: nearing(
      'tokens_remaining',
      (ctx) =>
        ctx.maxSessionTokens === undefined
          ? undefined
          : { used: ctx.run.usage.totalTokens, cap: ctx.maxSessionTokens },
      (used, cap) => `This run has used ${used} of its ${cap} tokens.`,
    ),
  },
  {
    name: 'maxCostUsd',
    reason: 'budget_exceeded',
    reached: (ctx) =>
      ctx.maxCostUsd !== undefined && ctx.run.costUsd !== null && ctx.run.costUsd >= ctx.maxCostUsd,
    callerText: (ctx) =>
      `Stopped: the run cost $${(ctx.run.costUsd ?? 0).toFixed(4)}, over its budget of $${ctx.maxCostUsd}.`,
    warning: nearing(
      'cost_remaining',
      (ctx) =>
        ctx.maxCostUsd === undefined || ctx.run.costUsd === null
          ? undefined
          : { used: ctx.run.costUsd, cap: ctx.maxCostUsd },
      (used, cap) => `This run has cost $${used.toFixed(4)} of its $${cap} budget.`,
    ),
  },
  {
    name: 'maxDurationMs',
    // A bound on time is a budget like tokens and dollars: the run did not fail, it ran out.
    reason: 'budget_exceeded',
    // Its timer aborts the run's signal (so a wait in flight ends too) with this reason.
    reached: (ctx) => ctx.signal.aborted && ctx.signal.reason instanceof RunDeadline,
    callerText: (ctx) => {
      const reason: unknown = ctx.signal.reason
      const ms = reason instanceof RunDeadline ? reason.ms : 0
      return `Stopped: the run reached its time limit of ${seconds(ms)} (maxDurationMs).`
    },
    warning: nearing(
      'time_remaining',
      (ctx) =>
        ctx.maxDurationMs === undefined
          ? undefined
          : { used: ctx.now() - ctx.startedAt, cap: ctx.maxDurationMs },
      (used, cap) => `This run has taken ${seconds(used)} of its ${seconds(cap)}.`,
    ),
  },
  {
    name: 'maxTurns',
    reason: 'max_turns',
    // Only a new step counts against maxTurns.
    reached: (ctx, next) => startsStep(next) && ctx.run.step >= ctx.maxTurns,
    callerText: (ctx) => `Stopped after ${ctx.run.step} steps without finishing.`,
    warning: {
      code: 'steps_remaining',
      at: (ctx, step) => {
        const remaining = ctx.maxTurns - step + 1
        if (!countdownAt.includes(remaining)) return undefined
        return `${remaining} steps remain, this one included. Finish now if you can; otherwise call done with success: false and report what you found.`
      },
    },
  },
]

/**
 * Run-wide limits, checked between transitions: abort, then each limit of
 * the list; and the one place a person's takeover stops the run, at a step
 * boundary (before a new step begins: the action in flight has finished).
 */
export function guard(next: AgentState, ctx: AgentContext): AgentState {
  if (next.type === 'done') return next
  if (ctx.signal.aborted) return abortedEnding(ctx, next)
  for (const limit of runLimits) if (limit.reached(ctx, next)) return endedBy(limit, ctx)
  if (ctx.handover?.requested && startsStep(next))
    return { type: 'handing_over', phase: 'start', cause: { by: 'user', resume: next } }
  return next
}

/**
 * How a run whose signal aborted in `state` ends: past its deadline (whose
 * timer aborted it, mid-wait) by the time limit, else by the caller's abort.
 */
export function abortedEnding(ctx: AgentContext, state: AgentState): DoneState {
  const timeLimit = runLimits.find((limit) => limit.name === 'maxDurationMs')
  if (timeLimit?.reached(ctx, state)) return endedBy(timeLimit, ctx)
  return { type: 'done', reason: 'user_abort', result: abortedResult(ctx, state) }
}

function endedBy(limit: RunLimit, ctx: AgentContext): DoneState {
  const text = `${limit.callerText(ctx)} ${lastMemory(ctx)}`.trim()
  return { type: 'done', reason: limit.reason, result: { success: false, text } }
}

/**
 * The warnings the model reads at the start of `step` from the limits it
 * nears, each with its limit's name (the caller records it in the run's
 * `warnedLimits`, so a once-a-run warning is not read again).
 */
export function limitWarnings(
  ctx: AgentContext,
  step: number,
): { limit: string; code: string; message: string }[] {
  return runLimits.flatMap((limit) => {
    const warning = limit.warning
    if (!warning || (warning.once && ctx.run.warnedLimits.includes(limit.name))) return []
    const message = warning.at(ctx, step)
    return message ? [{ limit: limit.name, code: warning.code, message }] : []
  })
}

/** The abort reason of a run stopped by its wall-clock bound (its children's signals carry it too). */
export class RunDeadline extends Error {
  override name = 'RunDeadline'
  readonly ms: number
  constructor(ms: number) {
    super(`The run reached its time limit of ${seconds(ms)}.`)
    this.ms = ms
  }
}

/**
 * Aborts `controller` with RunDeadline after `ms`; the returned function
 * clears the timer (called when the run ends: no timer outlives its run).
 */
export function armDeadline(controller: AbortController, ms: number | undefined): () => void {
  if (ms === undefined) return () => {}
  const timer = setTimeout(() => controller.abort(new RunDeadline(ms)), ms)
  return () => clearTimeout(timer)
}

/** A request the run's limits cannot be kept for: a dollar cap on a model without a price. */
export class RunLimitError extends Error {
  override name = 'RunLimitError'
}

/** Throws RunLimitError when a dollar cap cannot be kept: the model's price is unknown, so its cost is too. */
export function refuseUnkeepableLimits(
  limits: { maxCostUsd?: number | undefined },
  modelName: string,
  price: ModelPrice | undefined,
): void {
  if (limits.maxCostUsd === undefined || price) return
  throw new RunLimitError(
    `maxCostUsd needs a priced model, and ${modelName} has no price: its cost cannot be counted. Add it to a price file (SEXTANT_PRICES) or drop maxCostUsd.`,
  )
}

/**
 * Only a new step counts against maxTurns, whoever takes it: the model's
 * (`thinking`) or the recording's (a replayed step). A retry (backoff)
 * continues the current step; a replay's check of the step it just replayed
 * is part of that step, so a recording of exactly maxTurns steps still ends.
 */
function startsStep(next: AgentState): next is ThinkingState | ReplayStepState {
  return next.type === 'thinking' || (next.type === 'replaying' && next.phase === 'step')
}

/** The result of a run aborted in `state`. */
export function abortedResult(ctx: AgentContext, state: AgentState): RunResult {
  if (state.type === 'opening') return { success: false, text: 'Aborted before the browser started.' }
  return { success: false, text: `Aborted at step ${ctx.run.step}. ${lastMemory(ctx)}`.trim() }
}

function lastMemory(ctx: AgentContext): string {
  const memory = ctx.run.history.findLast((record) => record.output?.memory)?.output?.memory
  return memory ? `Last memory: ${memory}` : ''
}

function seconds(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`
}
