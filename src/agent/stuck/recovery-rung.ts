import { logAttempt } from './escalation.ts'
import { recoveryNote } from './messages.ts'
import { quote } from './normalize.ts'
import type { RecoveryStrategy } from './options.ts'
import { planRecovery, runRecovery } from './recovery.ts'
import type { Rung } from './rung.ts'
import type { StuckVerdict } from './types.ts'

/** Runs one recovery strategy, logs it in the episode, and asks for a re-observation when it worked. */
export async function recoverRung(
  rung: Rung,
  strategy: RecoveryStrategy,
  progressUrl: string | undefined,
): Promise<StuckVerdict> {
  const { input, state, events } = rung
  const plan = planRecovery(strategy, progressUrl === undefined ? {} : { progressUrl }, rung.config)
  // The ladder only picks navigate_last_progress after finding a progress URL, the one case without a plan.
  if (!plan) throw new Error(`The ${strategy} recovery was chosen but does not apply.`)
  const result = await runRecovery(plan, input.runTool, input.signal)
  const outcome = `${result.ok ? 'ok' : 'failed'}: ${quote(result.text)}`
  state.escalation = logAttempt(
    state.escalation,
    `tried to ${plan.description} at step ${input.step} (${outcome})`,
  )
  events.push({
    type: 'recovery',
    kind: rung.primary.kind,
    strategy: plan.strategy,
    detail: `Tried to ${plan.description}: ${outcome}`,
  })
  return {
    events,
    notes: [...rung.notes, recoveryNote(plan, result, rung.detections)],
    reobserve: result.ok,
  }
}
