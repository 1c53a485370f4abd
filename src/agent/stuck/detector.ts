import type { EventDraft, StuckKind } from '../../events/events.ts'
import { AbortError, isAbortError } from '../../tool.ts'
import { describeError } from '../../util/errors.ts'
import { type Detection, detectErrorBudget, detectLoops } from './detectors/index.ts'
import { type EscalationState, escalate, guided, initialEscalation, logAttempt } from './escalation.ts'
import { liveTrace } from './live-trace.ts'
import {
  endText,
  errorBudgetWarning,
  guidanceNote,
  recoveryNote,
  reminderNote,
  stuckNote,
  supervisorFailedNote,
} from './messages.ts'
import { quote } from './normalize.ts'
import { errorBudget, resolveStuckOptions, type StuckOptions } from './options.ts'
import { lastProgressUrl, planRecovery, runRecovery } from './recovery.ts'
import { consultSupervisor } from './supervisor.ts'
import type { TracePage } from './trace.ts'
import type { StuckDetector, StuckInput, StuckVerdict } from './types.ts'

/**
 * One run's stuck detector. Per step it builds the run's trace, runs the pure
 * detectors, climbs the escalation ladder when a pattern holds, and carries
 * out the rung: a note, a recovery, the supervisor, or the end of the run.
 */
export function createStuckDetector(options: Partial<StuckOptions> = {}): StuckDetector {
  const config = resolveStuckOptions(options)
  let escalation: EscalationState = initialEscalation
  let liveKinds = new Set<StuckKind>()
  let lastStep = 0
  let budgetWarned = false
  let approach: string | undefined
  const observedAt = new Map<number, TracePage>()

  async function evaluate(input: StuckInput): Promise<StuckVerdict> {
    if (input.signal.aborted) throw new AbortError()
    // Called again in the same step (after a recovery's re-observation): the step was already judged.
    if (input.step <= lastStep) return { events: [], notes: [] }
    lastStep = input.step
    const { url, fingerprint, pageView } = input.observation
    const current = { url, fingerprint, loading: config.isLoading(pageView) }
    observedAt.set(input.step, current)

    const budget = detectErrorBudget(input.failedActions, input.maxTurns, config, input.step)
    if (budget) {
      const text = `Stopped: ${budget.detail} Actions keep failing, so the run ends here rather than spend its remaining steps.`
      return { events: [stuckDetected(budget, input.step)], notes: [], end: { text } }
    }
    const notes: string[] = []
    const limit = errorBudget(input.maxTurns, config)
    if (!budgetWarned && input.failedActions === limit) {
      budgetWarned = true
      notes.push(errorBudgetWarning(input.failedActions, limit + 1))
    }

    const trace = liveTrace(input.history, { ...current, step: input.step }, observedAt)
    const detections = detectLoops(trace, config)
    let progressUrl: string | undefined
    const rung = escalate(
      escalation,
      {
        stuck: detections.length > 0,
        step: input.step,
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
    escalation = rung.state
    for (const strategy of rung.skipped) {
      escalation = logAttempt(
        escalation,
        `${strategy}: not applicable (no earlier page where the run made progress)`,
      )
    }
    if (!escalation.episode) approach = undefined
    const events = stuckEvents(detections, liveKinds, input.step)
    liveKinds = new Set(detections.map((detection) => detection.kind))
    const primary = detections[0]
    const action = rung.action

    switch (action.type) {
      case 'none':
        return { events, notes }

      case 'note':
        escalation = logAttempt(escalation, `told the agent it was stuck (step ${input.step})`)
        return { events, notes: [...notes, stuckNote(detections)] }

      case 'recover': {
        const plan = planRecovery(action.strategy, { progressUrl }, config)!
        const result = await runRecovery(plan, input.runTool, input.signal)
        const outcome = `${result.ok ? 'ok' : 'failed'}: ${quote(result.text)}`
        escalation = logAttempt(escalation, `tried to ${plan.description} at step ${input.step} (${outcome})`)
        events.push({
          type: 'recovery',
          kind: primary!.kind,
          strategy: plan.strategy,
          detail: `Tried to ${plan.description}: ${outcome}`,
        })
        return { events, notes: [...notes, recoveryNote(plan, result, detections)], reobserve: result.ok }
      }

      case 'supervise': {
        const tried = escalation.episode?.log ?? []
        try {
          const { answer, usage } = await consultSupervisor({
            model: config.supervisorModel ?? input.model,
            task: input.task,
            step: input.step,
            maxTurns: input.maxTurns,
            history: input.history,
            observation: input.observation,
            detections,
            tried,
            signal: input.signal,
            pageViewChars: config.supervisorPageViewChars,
            resultChars: config.supervisorResultChars,
          })
          if (answer.decision === 'abort') {
            events.push({
              type: 'recovery',
              kind: primary!.kind,
              strategy: 'supervisor',
              detail: `Abort: ${answer.reason}`,
            })
            const why = `A supervisor reviewed the run and stopped it: ${answer.reason}`
            return { events, notes, usage, end: { text: finalText(detections, why) } }
          }
          approach = answer.approach
          escalation = guided(
            logAttempt(escalation, `a supervisor proposed (step ${input.step}): ${answer.approach}`),
          )
          events.push({
            type: 'recovery',
            kind: primary!.kind,
            strategy: 'supervisor',
            detail: `New approach: ${answer.approach}`,
          })
          return {
            events,
            notes: [...notes, guidanceNote(answer.approach)],
            guidance: answer.approach,
            usage,
          }
        } catch (error) {
          if (isAbortError(error) || input.signal.aborted) throw error
          const message = describeError(error)
          escalation = logAttempt(escalation, `asking a supervisor failed (step ${input.step}): ${message}`)
          events.push({
            type: 'recovery',
            kind: primary!.kind,
            strategy: 'supervisor',
            detail: `Failed: ${message}`,
          })
          return { events, notes: [...notes, supervisorFailedNote(detections)] }
        }
      }

      case 'remind':
        return { events, notes: [...notes, reminderNote(detections, approach)] }

      case 'end': {
        const why =
          action.why === 'ceiling'
            ? `It was stuck on ${escalation.stuckSteps} steps of the run, the most allowed.`
            : approach
              ? "Neither the recoveries nor the supervisor's new approach freed it."
              : 'The recoveries did not free it.'
        return { events, notes, end: { text: finalText(detections, why) } }
      }

      default: {
        const unknown: never = action
        throw new Error(`Unknown escalation action ${JSON.stringify(unknown)}`)
      }
    }
  }

  function finalText(detections: Detection[], why: string): string {
    return endText({
      detections,
      since: escalation.episode?.since,
      tried: escalation.episode?.log ?? [],
      why,
    })
  }

  return { evaluate }
}

function stuckDetected(detection: Detection, step: number): EventDraft {
  return { type: 'stuck_detected', kind: detection.kind, step, detail: detection.detail }
}

/**
 * A stuck_detected event for each pattern that starts holding at this step;
 * when the same patterns merely persist, one event for the main one, so each
 * climb of the ladder is explained in the event stream.
 */
function stuckEvents(detections: Detection[], previous: ReadonlySet<StuckKind>, step: number): EventDraft[] {
  const fresh = detections.filter((detection) => !previous.has(detection.kind))
  return (fresh.length > 0 ? fresh : detections.slice(0, 1)).map((detection) =>
    stuckDetected(detection, step),
  )
}
