import { isAbortError } from '../../tool.ts'
import { describeError } from '../../util/describe-error.ts'
import { guided, logAttempt } from './escalation.ts'
import { guidanceNote, supervisorFailedNote } from './messages.ts'
import { finalText } from './monitor-state.ts'
import type { Rung } from './rung.ts'
import { consultSupervisor } from './supervisor.ts'
import type { StuckVerdict } from './types.ts'

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
