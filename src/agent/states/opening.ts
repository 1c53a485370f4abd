import { isAbortError } from '../../tool.ts'
import { describeError } from '../../util/describe-error.ts'
import type { AgentContext, TransitionResult } from '../run/run-context.ts'
import { ProfileLoadError } from '../run/run-profile.ts'
import type { AgentState } from '../run/run-state.ts'

/**
 * Opens the run's browser (or takes the caller's), then hands the run to
 * its first step: the recording's when it replays one, else the model's.
 * A browser that cannot start ends the run with `error`, saying why. One
 * that arrives after an abort is closed by the loop (see `abandon`).
 */
export async function opening(ctx: AgentContext): Promise<TransitionResult> {
  const first: AgentState = ctx.replay ? { type: 'replaying', phase: 'check' } : { type: 'thinking' }
  const setup = ctx.browserSetup
  if (!setup) return { next: first, effects: [] }
  let opened: Awaited<ReturnType<typeof setup.open>>
  try {
    opened = await setup.open(ctx.signal)
  } catch (error) {
    if (isAbortError(error) || ctx.signal.aborted) throw error
    // A profile that cannot be read is no fault of the browser's: saying so would send the reader the wrong way.
    const message =
      error instanceof ProfileLoadError
        ? error.message
        : `The browser could not be started: ${describeError(error)}`
    return {
      next: { type: 'done', reason: 'error', result: { success: false, text: message } },
      effects: [{ type: 'error', message, retryable: false }],
    }
  }
  return { next: first, effects: [], ...(opened ? { update: { browser: opened } } : {}) }
}
