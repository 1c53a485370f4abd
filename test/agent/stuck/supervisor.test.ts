import { describe, expect, test } from 'vitest'
import type { StepRecord } from '../../../src/agent/run/step-record.ts'
import { consultSupervisor, supervisorPrompt } from '../../../src/agent/stuck/supervisor.ts'
import type { Detection } from '../../../src/agent/stuck/trace.ts'
import { observation, supervisorModel } from './simulate.ts'

const history: StepRecord[] = [3, 4, 5].map((step) => ({
  step,
  url: 'https://shop.test/checkout',
  fingerprint: 'checkout',
  output: {
    evaluation_previous_goal: 'Failure: nothing happened.',
    memory: 'Cart has 2 items.',
    next_goal: 'Place the order.',
    action: { tool: 'click', input: { ref: 'b9q1' } },
  },
  action: { tool: 'click', input: { ref: 'b9q1' } },
  result: { ok: true, text: `Clicked button 'Place order'. ${'x'.repeat(500)}` },
}))
const detections: Detection[] = [{ kind: 'stall', since: 3, detail: 'The page has not changed.', urls: [] }]

function request(model = supervisorModel({ decision: 'abort', reason: 'r', approach: '' })) {
  return {
    model,
    task: 'Buy the cheapest lamp.',
    step: 6,
    maxTurns: 30,
    history,
    observation: observation({
      url: 'https://shop.test/checkout',
      fingerprint: 'checkout',
      pageView: `- button "Place order" [disabled]\n${'y'.repeat(200)}`,
    }),
    detections,
    tried: ['tried to press Escape to close any dialog, menu or overlay at step 5 (ok: "Pressed Escape.")'],
    signal: new AbortController().signal,
    pageViewChars: 100,
    resultChars: 40,
  }
}

describe('supervisor', () => {
  test('the prompt holds the task, the patterns, what was tried, every step and the current page, clipped', () => {
    const prompt = supervisorPrompt(request())
    expect(prompt).toContain('Buy the cheapest lamp.')
    expect(prompt).toContain('Step 6 of at most 30.')
    expect(prompt).toContain('- stall: The page has not changed.')
    expect(prompt).toContain('- tried to press Escape to close any dialog, menu or overlay at step 5')
    expect(prompt).toContain('earlier steps were summarized away')
    expect(prompt).toContain(
      'Step 4 on https://shop.test/checkout\n  evaluation: Failure: nothing happened.\n  goal: Place the order.\n  action: click {"ref":"b9q1"}',
    )
    expect(prompt).toContain("result (ok): Clicked button 'Place order'. xxxxxxxxxx…\nStep 5 on")
    expect(prompt).toContain('- button "Place order" [disabled]')
    expect(prompt).toContain('more characters)')
  })

  test('sends instructions and asks for JSON matching the decision schema', async () => {
    const model = supervisorModel({
      decision: 'new_approach',
      reason: 'The button is disabled until terms are accepted.',
      approach: 'Tick the terms checkbox, then place the order.',
    })
    const { answer, usage } = await consultSupervisor(request(model))
    expect(answer).toEqual({
      decision: 'new_approach',
      reason: 'The button is disabled until terms are accepted.',
      approach: 'Tick the terms checkbox, then place the order.',
    })
    expect(usage.totalTokens).toBe(960)
    const call = model.doGenerateCalls[0]!
    expect(call.prompt[0]).toMatchObject({
      role: 'system',
      content: expect.stringContaining('You supervise a browser agent'),
    })
    expect(call.responseFormat).toMatchObject({
      type: 'json',
      schema: { required: ['decision', 'reason', 'approach'] },
    })
  })

  test('a new approach without its description falls back on the reason; with neither it is an error', async () => {
    const fallback = await consultSupervisor(
      request(
        supervisorModel({ decision: 'new_approach', reason: 'Use the search box instead.', approach: ' ' }),
      ),
    )
    expect(fallback.answer).toMatchObject({ approach: 'Use the search box instead.' })
    await expect(
      consultSupervisor(request(supervisorModel({ decision: 'new_approach', reason: '', approach: '' }))),
    ).rejects.toThrow('did not describe it')
  })
})
