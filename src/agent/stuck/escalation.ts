import type { RecoveryStrategy, StuckOptions } from './options.ts'

/**
 * The escalation ladder, as a pure state machine. Each step on which a stuck
 * pattern holds climbs one rung of the current episode:
 *
 *   note → each recovery strategy once, in order → supervisor → grace steps
 *   on the supervisor's approach (reminders) → end
 *
 * An episode is over after `quietStepsToReset` steps in a row without a
 * pattern; the next one starts again at the note. Supervisor calls and stuck
 * steps are also counted over the whole run, so no run escalates forever.
 */

export interface Episode {
  /** The step the episode started at. */
  since: number
  /** Strategies tried or found not applicable in this episode. */
  tried: RecoveryStrategy[]
  /** The supervisor was consulted in this episode. */
  supervised: boolean
  /** The supervisor gave a new approach in this episode. */
  guided: boolean
  /** Stuck steps since the supervisor's new approach. */
  stuckStepsSinceGuidance: number
  /** What was tried, in order, for the run's final result if it ends. */
  log: string[]
}

export interface EscalationState {
  episode?: Episode
  /** Consecutive steps without a stuck pattern. */
  quietSteps: number
  /** Stuck steps in the whole run. */
  stuckSteps: number
  /** Supervisor calls in the whole run. */
  supervisorCalls: number
}

export type EscalationAction =
  | { type: 'none' }
  | { type: 'note' }
  | { type: 'recover'; strategy: RecoveryStrategy }
  | { type: 'supervise' }
  /** The supervisor's approach is being tried: remind the agent of it. */
  | { type: 'remind' }
  | { type: 'end'; why: 'exhausted' | 'ceiling' }

export interface EscalationStep {
  state: EscalationState
  action: EscalationAction
  /** Strategies passed over because they do not apply (no earlier page to return to). */
  skipped: RecoveryStrategy[]
}

export type EscalationOptions = Pick<
  StuckOptions,
  'recoveries' | 'maxSupervisorCalls' | 'supervisorGraceSteps' | 'quietStepsToReset' | 'maxStuckSteps'
>

export const initialEscalation: EscalationState = Object.freeze({
  quietSteps: 0,
  stuckSteps: 0,
  supervisorCalls: 0,
})

export function escalate(
  state: EscalationState,
  input: { stuck: boolean; step: number; applicable: (strategy: RecoveryStrategy) => boolean },
  options: EscalationOptions,
): EscalationStep {
  if (!input.stuck) {
    const quietSteps = state.quietSteps + 1
    const episode = quietSteps >= options.quietStepsToReset ? undefined : state.episode
    return { state: { ...state, quietSteps, episode }, action: { type: 'none' }, skipped: [] }
  }

  const base: EscalationState = { ...state, quietSteps: 0, stuckSteps: state.stuckSteps + 1 }
  if (base.stuckSteps >= options.maxStuckSteps) {
    return { state: base, action: { type: 'end', why: 'ceiling' }, skipped: [] }
  }
  const episode = state.episode
  if (!episode) {
    const fresh: Episode = {
      since: input.step,
      tried: [],
      supervised: false,
      guided: false,
      stuckStepsSinceGuidance: 0,
      log: [],
    }
    return { state: { ...base, episode: fresh }, action: { type: 'note' }, skipped: [] }
  }

  if (episode.guided) {
    const stuckStepsSinceGuidance = episode.stuckStepsSinceGuidance + 1
    const next = { ...base, episode: { ...episode, stuckStepsSinceGuidance } }
    const action: EscalationAction =
      stuckStepsSinceGuidance <= options.supervisorGraceSteps
        ? { type: 'remind' }
        : { type: 'end', why: 'exhausted' }
    return { state: next, action, skipped: [] }
  }

  const skipped: RecoveryStrategy[] = []
  if (!episode.supervised) {
    for (const strategy of options.recoveries) {
      if (episode.tried.includes(strategy) || skipped.includes(strategy)) continue
      if (!input.applicable(strategy)) {
        skipped.push(strategy)
        continue
      }
      const tried = [...episode.tried, ...skipped, strategy]
      return {
        state: { ...base, episode: { ...episode, tried } },
        action: { type: 'recover', strategy },
        skipped,
      }
    }
  }
  const tried = [...episode.tried, ...skipped]
  if (!episode.supervised && base.supervisorCalls < options.maxSupervisorCalls) {
    return {
      state: {
        ...base,
        supervisorCalls: base.supervisorCalls + 1,
        episode: { ...episode, tried, supervised: true },
      },
      action: { type: 'supervise' },
      skipped,
    }
  }
  return {
    state: { ...base, episode: { ...episode, tried } },
    action: { type: 'end', why: 'exhausted' },
    skipped,
  }
}

/** Records the supervisor's new approach: the grace steps start. */
export function guided(state: EscalationState): EscalationState {
  if (!state.episode) return state
  return { ...state, episode: { ...state.episode, guided: true, stuckStepsSinceGuidance: 0 } }
}

/** Adds an entry to the episode's account of what was tried. */
export function logAttempt(state: EscalationState, entry: string): EscalationState {
  if (!state.episode) return state
  return { ...state, episode: { ...state.episode, log: [...state.episode.log, entry] } }
}
