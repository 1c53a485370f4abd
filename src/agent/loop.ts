import type { AgentEvent } from '../events/events.ts'
import { tracedRun } from '../telemetry/traced-run.ts'
import { AbortError, abortable, isAbortError } from '../tool.ts'
import { describeError } from '../util/describe-error.ts'
import type { SettledRun } from './replay/replay-setup.ts'
import { applyUpdate } from './run/apply-update.ts'
import { openRun } from './run/open-run.ts'
import { abandon, type LostTransition, releaseRun } from './run/release-run.ts'
import type { AgentContext, TransitionResult } from './run/run-context.ts'
import { abortedEnding, guard } from './run/run-limits.ts'
import type { RunOptions, RunSummary } from './run/run-options.ts'
import type { AgentState } from './run/run-state.ts'
import { backoff } from './states/backoff.ts'
import { compacting } from './states/compacting.ts'
import { confirming } from './states/confirming.ts'
import { dispatching } from './states/dispatching.ts'
import { executing } from './states/executing.ts'
import { extracting } from './states/extracting.ts'
import { handingOver } from './states/handing-over.ts'
import { opening } from './states/opening.ts'
import { replaying } from './states/replaying.ts'
import { restartingBrowser } from './states/restarting-browser.ts'
import { streaming } from './states/streaming.ts'
import { thinking } from './states/thinking.ts'

export { defaultMaxTurns } from './run/open-run.ts'
export { AbortError }

/** One transition of the run's state machine: a handler per state, exhaustively. */
export async function transition(state: AgentState, ctx: AgentContext): Promise<TransitionResult> {
  switch (state.type) {
    case 'opening':
      return opening(ctx)
    case 'restarting_browser':
      return restartingBrowser(state, ctx)
    case 'thinking':
      return thinking(ctx)
    case 'backoff':
      return backoff(state, ctx)
    case 'streaming':
      return streaming(state, ctx)
    case 'executing':
      return executing(state, ctx)
    case 'confirming':
      return confirming(state, ctx)
    case 'dispatching':
      return dispatching(state, ctx)
    case 'handing_over':
      return handingOver(state, ctx)
    case 'compacting':
      return compacting(ctx)
    case 'replaying':
      return replaying(state, ctx)
    case 'extracting':
      return extracting(ctx)
    case 'done':
      return { next: state, effects: [] }
    default: {
      const unknownState: never = state
      throw new Error(`Unknown state ${JSON.stringify(unknownState)}`)
    }
  }
}

/**
 * Runs one task to its end and yields every event on the way. The final
 * `done` event is always yielded (unless the consumer stops iterating first),
 * and whatever the run opened is closed on every path. `settled` is what a
 * caller (the server) already made of these options: not made again. The run
 * is traced (telemetry/traced-run.ts) under `options.traceparent` or the
 * caller's active OpenTelemetry context, a no-op without a tracer provider.
 */
export function runAgent<Data = unknown>(
  options: RunOptions<Data>,
  settled?: SettledRun,
): AsyncGenerator<AgentEvent, RunSummary<Data>, undefined> {
  return tracedRun(options, runEvents(options, settled))
}

/** The run itself, untraced: sub-agents run through this, their events traced by their parent's trace. */
async function* runEvents<Data = unknown>(
  options: RunOptions<Data>,
  settled?: SettledRun,
): AsyncGenerator<AgentEvent, RunSummary<Data>, undefined> {
  const run = openRun(options as RunOptions, runEvents, settled)
  const { ctx, stamp } = run
  let state: AgentState = { type: 'opening' }
  let lost: LostTransition | undefined
  let finished = false
  const release = () => {
    run.unlink()
    return releaseRun({ ctx, state, controller: run.controller, lost, abortDeadlineMs: run.abortDeadlineMs })
  }
  try {
    yield* stamp(run.runStarted)
    while (state.type !== 'done') {
      const from: AgentState = state
      const { result, abandoned } = await settle(transition(from, ctx), from, ctx)
      lost = abandoned ?? lost
      applyUpdate(ctx, result.update)
      for (const effect of result.effects) yield* stamp(effect)
      state = guard(result.next, ctx)
      if (state.type !== from.type)
        ctx.log.debug({ runId: ctx.runId, from: from.type, to: state.type }, 'transition')
    }

    const warnings = await release()
    // What the children of an aborted dispatch said on their way out (their `done`s), now that they ended.
    for (const event of ctx.run.inFlight?.leftovers?.() ?? []) yield* stamp(event)
    for (const warning of warnings) yield* stamp(warning)
    const summary = run.summarize(state)
    finished = true
    yield* stamp({ type: 'done', ...summary })
    // The data was checked against `options.output`, whose output type is Data.
    return summary as RunSummary<Data>
  } finally {
    // Reached without `finished` when the consumer called return() or a yield threw.
    if (!finished) await release()
  }
}

/**
 * A transition's result, or the run's end when it cannot give one: an abort
 * ends the run at once (the transition, still settling, is `abandoned` for
 * release to watch), and any other throw is an internal error, reported.
 */
async function settle(
  attempt: Promise<TransitionResult>,
  from: AgentState,
  ctx: AgentContext,
): Promise<{ result: TransitionResult; abandoned?: LostTransition }> {
  try {
    return { result: await abortable(attempt, ctx.signal) }
  } catch (error) {
    if (ctx.signal.aborted || isAbortError(error)) {
      const abandoned = abandon(attempt, from, ctx)
      return { result: { next: abortedEnding(ctx, from), effects: [] }, abandoned }
    }
    const message = ctx.secrets.scrub(`Internal error in state ${from.type}: ${describeError(error)}`)
    ctx.log.error({ runId: ctx.runId, err: error }, message)
    return {
      result: {
        next: { type: 'done', reason: 'error', result: { success: false, text: message } },
        effects: [{ type: 'error', message, retryable: false }],
      },
    }
  }
}
