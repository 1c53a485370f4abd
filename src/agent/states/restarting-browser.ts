import { isAbortError } from '../../tool.ts'
import { settlesWithin } from '../../util/deadline.ts'
import { describeError } from '../../util/describe-error.ts'
import type { AgentContext, TransitionResult } from '../run/run-context.ts'
import type { RestartingBrowserState } from '../run/run-state.ts'

/** A run gets one fresh browser: one that dies again is being killed by something a third would meet too. */
const maxBrowserRestarts = 1
/** The dead browser's session is closed (its guard, its pool slot) but not waited on for long: it has nothing left to say. */
const deadBrowserCloseMs = 5_000

/**
 * The run's browser died between steps (its process exited, its connection
 * or its context was lost). It is replaced once, through the same factory or
 * launcher the run opened it with, at the page the model last saw, and the
 * model is told what was lost. A second death, a browser the caller handed
 * in (not the run's to replace) or a fresh one that cannot start ends the run
 * with `error`, naming the cause.
 */
export async function restartingBrowser(
  state: RestartingBrowserState,
  ctx: AgentContext,
): Promise<TransitionResult> {
  const { failure } = state
  const opened = ctx.run.browser
  const setup = ctx.browserSetup
  if (!opened?.owned || !setup)
    return failed(`${failure.message} The browser was the caller's, so the run cannot replace it.`)
  if (ctx.run.browserRestarts >= maxBrowserRestarts)
    return failed(`${failure.message} The run had already been given a fresh browser once, so it stops here.`)

  await settlesWithin(setup.close(opened.browser), deadBrowserCloseMs)
  const url = ctx.run.lastObservation?.url
  let fresh: Awaited<ReturnType<typeof setup.open>>
  try {
    fresh = await setup.open(ctx.signal, url)
  } catch (error) {
    if (isAbortError(error) || ctx.signal.aborted) throw error
    return failed(`${failure.message} A fresh browser could not be started: ${describeError(error)}`)
  }
  // Only a run without a browser (browser: null) opens none, and it has none to lose.
  if (!fresh) return failed(failure.message)

  const note = `${failure.message} This run was given a fresh browser${url ? `, reopened at ${url}` : ''}, but the page's state is lost: whatever was typed, opened or changed, other tabs, and any login. Check the page and redo what is missing.`
  return {
    next: { type: 'thinking' },
    effects: [{ type: 'warning', code: 'browser_restarted', message: note }],
    update: {
      browser: fresh,
      run: { browserRestarts: ctx.run.browserRestarts + 1, notes: [...ctx.run.notes, note] },
    },
  }
}

function failed(text: string): TransitionResult {
  return {
    next: { type: 'done', reason: 'error', result: { success: false, text } },
    effects: [{ type: 'error', message: text, retryable: false }],
  }
}
