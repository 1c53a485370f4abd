import { describe, expect, test } from 'vitest'
import {
  type EscalationState,
  escalate,
  guided,
  initialEscalation,
} from '../../../src/agent/stuck/escalation.ts'
import { defaultStuckOptions } from '../../../src/agent/stuck/options.ts'

const always = () => true

/** Feeds a sequence of stuck (true) / quiet (false) steps and returns the actions taken. */
function ladder(
  steps: boolean[],
  options = defaultStuckOptions,
  applicable: (strategy: string) => boolean = always,
  onSupervise = guided,
) {
  let state: EscalationState = initialEscalation
  return steps.map((stuck, index) => {
    const next = escalate(state, { stuck, step: index + 1, applicable }, options)
    state = next.action.type === 'supervise' ? onSupervise(next.state) : next.state
    const { action } = next
    return action.type === 'recover'
      ? action.strategy
      : action.type === 'end'
        ? `end:${action.why}`
        : action.type
  })
}

describe('escalate', () => {
  test('climbs one rung per stuck step: note, recoveries in order, supervisor, grace, end', () => {
    expect(ladder(Array(9).fill(true))).toEqual([
      'note',
      'scroll_top',
      'escape',
      'reload',
      'navigate_last_progress',
      'supervise',
      'remind',
      'remind',
      'end:exhausted',
    ])
  })

  test('a quiet step pauses the climb; enough quiet steps end the episode', () => {
    expect(ladder([true, false, true, false, false, false, true, true])).toEqual([
      'note',
      'none',
      'scroll_top',
      'none',
      'none',
      'none',
      'note',
      'scroll_top',
    ])
  })

  test('passes over strategies that do not apply, and honours the order and subset given', () => {
    const options = {
      ...defaultStuckOptions,
      recoveries: ['reload' as const, 'navigate_last_progress' as const, 'escape' as const],
    }
    const noProgressUrl = (strategy: string) => strategy !== 'navigate_last_progress'
    expect(ladder([true, true, true, true], options, noProgressUrl)).toEqual([
      'note',
      'reload',
      'escape',
      'supervise',
    ])
  })

  test('supervisor calls are capped over the whole run; without guidance there is no grace', () => {
    const options = { ...defaultStuckOptions, recoveries: [], maxSupervisorCalls: 1, quietStepsToReset: 1 }
    expect(ladder([true, true, true, false, true, true], options, always, (state) => state)).toEqual([
      'note',
      'supervise',
      'end:exhausted',
      'none',
      'note',
      'end:exhausted',
    ])
  })

  test('the run-wide ceiling on stuck steps wins over the ladder', () => {
    const options = { ...defaultStuckOptions, maxStuckSteps: 4, quietStepsToReset: 1 }
    expect(ladder([true, true, false, true, true], options)).toEqual([
      'note',
      'scroll_top',
      'none',
      'note',
      'end:ceiling',
    ])
  })
})
