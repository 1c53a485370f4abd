import { isAbortError } from '../../tool.ts'
import { describeError } from '../../util/describe-error.ts'
import { type EscalationAction, escalate, guided, logAttempt } from './escalation.ts'
import { guidanceNote, recoveryNote, supervisorFailedNote } from './messages.ts'
import { finalText, type MonitorState, type Rung } from './monitor-state.ts'
import { quote } from './normalize.ts'
import type { RecoveryStrategy, StuckOptions } from './options.ts'
import { lastProgressUrl, planRecovery, runRecovery } from './recovery.ts'
import type { StuckVerdict } from './stuck-detector.ts'
import { consultSupervisor } from './supervisor.ts'
import type { Detection, Trace } from './trace.ts'

/**
 * The escalation ladder against one run's state: climbing it a step, and
 * carrying out the rungs that act (a recovery, the supervisor).
 */

/**
 * Climbs the escalation ladder one step (or lets it rest when no pattern
 * holds), logs the strategies passed over, and forgets the supervisor's
 * approach when the episode is over. Returns the rung's action, with the page
 * to return to when a navigate_last_progress recovery was found applicable.
 */
export function climbLadder(
  state: MonitorState,
  detections: Detection[],
  trace: Trace,
  step: number,
  config: StuckOptions,
): { action: EscalationAction; progressUrl: string | undefined } {
  let progressUrl: string | undefined
  const rung = escalate(
    state.escalation,
    {
      stuck: detections.length > 0,
      step,
      applicable: (strategy) => {
        if (strategy !== 'navigate_last_progress') return true
        progressUrl = lastProgressUrl(
          trace,
          detections.flatMap((detection) => detection.urls),
          config,
        )
        return progressUrl !== undefined
      },
    },
    config,
  )
  state.escalation = rung.state
  for (const strategy of rung.skipped) {
    state.escalation = logAttempt(
      state.escalation,
      `${strategy}: not applicable (no earlier page where the run made progress)`,
    )
  }
  if (!state.escalation.episode) state.approach = undefined
  return { action: rung.action, progressUrl }
}

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

/**
 * Consults the supervisor: it ends the run, or gives an approach that guides
 * every later prompt. A failed consultation is logged and the run goes on.
 */
export async function superviseRung(rung: Rung): Promise<StuckVerdict> {
  const { input, state, config, detections, events, notes } = rung
  const kind = rung.primary.kind
  try {
    const { answer, usage } = await consultSupervisor({
      model: config.supervisorModel ?? input.model,
      task: input.task,
      step: input.step,
      maxTurns: input.maxTurns,
      history: input.history,
      observation: input.observation,
      detections,
      tried: state.escalation.episode?.log ?? [],
      signal: input.signal,
      pageViewChars: config.supervisorPageViewChars,
      resultChars: config.supervisorResultChars,
    })
    if (answer.decision === 'abort') {
      events.push({ type: 'recovery', kind, strategy: 'supervisor', detail: `Abort: ${answer.reason}` })
      const why = `A supervisor reviewed the run and stopped it: ${answer.reason}`
      return { events, notes, usage, end: { text: finalText(state, detections, why) } }
    }
    state.approach = answer.approach
    state.escalation = guided(
      logAttempt(state.escalation, `a supervisor proposed (step ${input.step}): ${answer.approach}`),
    )
    events.push({
      type: 'recovery',
      kind,
      strategy: 'supervisor',
      detail: `New approach: ${answer.approach}`,
    })
    return { events, notes: [...notes, guidanceNote(answer.approach)], guidance: answer.approach, usage }
  } catch (error) {
    if (isAbortError(error) || input.signal.aborted) throw error
    const message = describeError(error)
    state.escalation = logAttempt(
      state.escalation,
      `asking a supervisor failed (step ${input.step}): ${message}`,
    )
    events.push({ type: 'recovery', kind, strategy: 'supervisor', detail: `Failed: ${message}` })
    return { events, notes: [...notes, supervisorFailedNote(detections)] }
  }
}
