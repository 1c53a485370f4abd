import type { EventDraft } from '../../events/events.ts'
import { settlesWithin } from '../../util/deadline.ts'
import type { AgentContext, TransitionResult } from './run-context.ts'
import type { AgentState } from './run-state.ts'

const browserCloseDeadlineMs = 5_000
const profileSaveDeadlineMs = 10_000
/** Stopping a trace with its snapshots, finishing a video and scrubbing both take longer than a close. */
const artifactsDeadlineMs = 60_000

/** A transition the loop stopped waiting for at an abort; it may still be settling (a tool honouring the signal late). */
export interface LostTransition {
  label: string
  settled: Promise<unknown>
}

export interface ReleaseInput {
  ctx: AgentContext
  /** The state the run was in when it ended or was abandoned. */
  state: AgentState
  controller: AbortController
  lost: LostTransition | undefined
  abortDeadlineMs: number
}

/**
 * Stops whatever the run still has going and closes what it opened: the
 * model stream, the signal (so every tool and wait ends), the browser it
 * owns. A call that ignores the signal is waited for only `abortDeadlineMs`,
 * then named in the warning this returns.
 */
export async function releaseRun(input: ReleaseInput): Promise<EventDraft[]> {
  const { ctx, state, abortDeadlineMs } = input
  if (state.type === 'streaming') state.stream.cancel()
  const warnings: EventDraft[] = await awaitLastEffects(ctx, state, input.controller.signal)
  warnings.push(...(await lastScreenshot(ctx, abortDeadlineMs)))
  input.controller.abort()
  const pending = ctx.run.inFlight ?? input.lost
  if (pending && !(await settlesWithin(pending.settled, abortDeadlineMs))) {
    const message = `${pending.label} is still running ${abortDeadlineMs / 1000} s after the abort; it ignores the run's signal.`
    warnings.push({ type: 'warning', code: 'abort_deadline', message })
    ctx.log.warn({ runId: ctx.runId }, message)
  }
  const opened = ctx.run.browser
  ctx.browserSetup?.release()
  // Before the browser closes: its cookies and storage go with it.
  if (opened && ctx.browserSetup?.saveProfile) {
    const saving = ctx.browserSetup.saveProfile(opened.browser, state)
    const saved = await settlesWithin(saving, profileSaveDeadlineMs)
    if (saved) warnings.push(...(await saving))
    else ctx.log.warn({ runId: ctx.runId }, 'saving the profile timed out')
  }
  // Before the browser closes, after the profile: keeping them closes the context (which finishes a video).
  if (opened?.owned && ctx.browserSetup?.keepArtifacts) {
    const keeping = ctx.browserSetup.keepArtifacts(opened.browser)
    if (await settlesWithin(keeping, artifactsDeadlineMs)) warnings.push(...(await keeping))
    else ctx.log.warn({ runId: ctx.runId }, 'keeping the artifacts timed out')
  }
  if (opened?.owned && ctx.browserSetup) {
    const closing = ctx.browserSetup.close(opened.browser)
    if (!(await settlesWithin(closing, browserCloseDeadlineMs)))
      ctx.log.warn({ runId: ctx.runId }, 'closing the browser timed out')
  }
  return warnings
}

/**
 * The last step's screenshot, whose observation named its file, is kept even
 * by an aborted run if it comes within the deadline; it is stopped then. Either
 * way it is over before `done`: no file of the run is written after it.
 */
async function lastScreenshot(ctx: AgentContext, deadlineMs: number): Promise<EventDraft[]> {
  const screenshot = ctx.run.pendingScreenshot
  if (!screenshot) return []
  if (!(await settlesWithin(screenshot.settled, deadlineMs))) screenshot.stop()
  // Stopped, it writes nothing more even if its capture ignores the stop.
  return (await settlesWithin(screenshot.settled, deadlineMs)) ? screenshot.settled : []
}

/**
 * A run that ended on its own (not aborted) waits, before its browser closes,
 * for what its last actions set off: a save a page posts after a debounce
 * would otherwise never reach its server (seen in every replay of such a run,
 * which ends the moment its last step is replayed). The session bounds the wait.
 */
async function awaitLastEffects(
  ctx: AgentContext,
  state: AgentState,
  signal: AbortSignal,
): Promise<EventDraft[]> {
  const browser = ctx.run.browser?.browser
  if (state.type !== 'done' || state.reason === 'user_abort' || !browser?.finish || signal.aborted) return []
  try {
    const report = await browser.finish(signal)
    if (report.pending.length === 0) return []
    const message = `The browser closed with ${report.pending.length} request(s) the last actions started still unanswered after ${Math.round(report.waitedMs / 1000)} s: their effects may not have reached the server.`
    ctx.log.warn({ runId: ctx.runId, pending: report.pending }, message)
    return [{ type: 'warning', code: 'unfinished_requests', message }]
  } catch (error) {
    // A browser that died with the run has nothing left to wait for; closing it goes on.
    ctx.log.debug({ runId: ctx.runId, err: error }, 'waiting for the last effects failed')
    return []
  }
}

/**
 * A transition the loop stops waiting for at an abort. It may still bring a
 * browser (a factory that does not watch the signal to the end): one the run
 * opened is closed as soon as it arrives, so it never outlives the run.
 */
export function abandon(
  attempt: Promise<TransitionResult>,
  from: AgentState,
  ctx: AgentContext,
): LostTransition {
  const closeLate = async ({ update }: TransitionResult) => {
    if (update?.browser?.owned) await ctx.browserSetup?.close(update.browser.browser)
    // A step's screenshot it started is stopped (its observation was never yielded); settled once it is.
    update?.run?.pendingScreenshot?.stop()
    await update?.run?.pendingScreenshot?.settled
  }
  return { label: describeState(from), settled: attempt.then(closeLate).catch(() => {}) }
}

/** How a warning names the transition an abort cut short. */
function describeState(state: AgentState): string {
  if (state.type === 'executing' && state.phase !== 'start') return `The ${state.call.tool} action`
  if (state.type === 'confirming') return `The confirmation of ${state.call.tool}`
  if (state.type === 'opening') return 'Opening the browser'
  if (state.type === 'restarting_browser') return 'Restarting the browser'
  return `The ${state.type} step`
}
