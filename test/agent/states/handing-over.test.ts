import { describe, expect, test } from 'vitest'
import { createHandoverDesk, type HandoverDesk } from '../../../src/agent/handover/handover-desk.ts'
import { runAgent } from '../../../src/agent/loop.ts'
import type { RunOptions } from '../../../src/agent/run/run-options.ts'
import { playwrightSpec } from '../../../src/agent/tools/actions.ts'
import type { AgentEvent } from '../../../src/events/events.ts'
import { StepProgressTracker } from '../../../src/mcp/step-progress.ts'
import { recordingOf } from '../../../src/recording/from-events.ts'
import type { Recording } from '../../../src/recording/schema.ts'
import { fakeBrowser } from '../../support/fake-browser.ts'
import { agentOutput, scriptedModel } from '../../support/models/scripted-model.ts'
import { doneOf, ofType } from '../../support/run.ts'

const handOver = agentOutput({ hand_over: { reason: 'Solve the captcha' } })
const click = agentOutput({ click: { ref: 'b1' } })
const finish = agentOutput({ done: { text: 'ok', success: true } })

/**
 * Runs to the end; `onEvent` sees each event as it is yielded, before the run
 * goes on (a person acting on what the run says, as a client would).
 */
async function runWith(options: RunOptions, onEvent: (event: AgentEvent) => void): Promise<AgentEvent[]> {
  const events: AgentEvent[] = []
  for await (const event of runAgent({ stuck: false, ...options })) {
    events.push(event)
    onEvent(event)
  }
  return events
}

describe('handing_over', () => {
  test("the model's hand_over waits for the person; the result says they handed back", async () => {
    const desk = createHandoverDesk()
    const model = scriptedModel([{ output: handOver }, { output: finish }])
    const events = await runWith({ task: 't', model, browser: fakeBrowser(), handover: desk }, (event) => {
      if (event.type === 'takeover_started') desk.handBack()
    })
    expect(ofType(events, 'takeover_started')).toMatchObject([{ by: 'model', reason: 'Solve the captcha' }])
    expect(ofType(events, 'takeover_ended')).toHaveLength(1)
    expect(ofType(events, 'tool_call_result')[0]).toMatchObject({ ok: true })
    expect(model.prompts()[1]).toContain('A person took over (Solve the captcha) and handed the browser back')
    expect(doneOf(events).reason).toBe('model_stop')
    // An assistant following the run over MCP hears at once why it waits.
    const tracker = new StepProgressTracker(doneOf(events).runId)
    const messages = events.map((event) => tracker.next(event)?.message).filter(Boolean)
    expect(messages).toContain(
      'The run asks for a person to take over the browser. The model says: “Solve the captcha” The run waits until they hand it back.',
    )
  })

  test('a person takes over without being asked: the model is not asked again until hand-back', async () => {
    const desk = createHandoverDesk()
    const model = scriptedModel([{ output: click }, { output: finish }])
    let promptsWhileTakenOver = -1
    const events = await runWith({ task: 't', model, browser: fakeBrowser(), handover: desk }, (event) => {
      if (event.type === 'tool_call_start') desk.takeOver()
      if (event.type === 'takeover_started') promptsWhileTakenOver = model.prompts().length
      if (event.type === 'takeover_ended') expect(model.prompts().length).toBe(promptsWhileTakenOver)
      if (event.type === 'takeover_started') desk.handBack()
    })
    const types = events.map((event) => event.type)
    // The click in flight finished first; the takeover came before the next step.
    expect(types.indexOf('tool_call_result')).toBeLessThan(types.indexOf('takeover_started'))
    expect(types.lastIndexOf('step_started')).toBeGreaterThan(types.indexOf('takeover_ended'))
    expect(ofType(events, 'takeover_started')).toMatchObject([{ by: 'user' }])
    expect(promptsWhileTakenOver).toBe(1)
    expect(model.prompts()[1]).toContain('A person took over the browser after step 1 and handed it back')
    expect(doneOf(events).reason).toBe('model_stop')
  })

  test('an abort while a person has the browser ends the run user_abort', async () => {
    const desk = createHandoverDesk()
    const controller = new AbortController()
    const model = scriptedModel([{ output: handOver }, { output: finish }])
    const events = await runWith(
      { task: 't', model, browser: fakeBrowser(), handover: desk, signal: controller.signal },
      (event) => {
        if (event.type === 'takeover_started') setTimeout(() => controller.abort(), 10)
      },
    )
    expect(ofType(events, 'takeover_ended')).toEqual([])
    expect(doneOf(events).reason).toBe('user_abort')
  })

  test('nobody comes: after the timeout the model reads that nobody came', async () => {
    const desk: HandoverDesk = createHandoverDesk({ timeoutMs: 30 })
    const model = scriptedModel([{ output: handOver }, { output: finish }])
    const events = await runWith({ task: 't', model, browser: fakeBrowser(), handover: desk }, () => {})
    expect(ofType(events, 'takeover_ended')).toHaveLength(1)
    expect(ofType(events, 'tool_call_result')[0]).toMatchObject({ ok: false })
    expect(model.prompts()[1]).toContain('Nobody came to take over within 0 s')
    expect(doneOf(events).reason).toBe('model_stop')
  })

  test('a hand_over without a reason is refused with what is missing; nobody is asked', async () => {
    const desk = createHandoverDesk()
    const model = scriptedModel([{ output: agentOutput({ hand_over: { reason: ' ' } }) }, { output: finish }])
    const events = await runWith({ task: 't', model, browser: fakeBrowser(), handover: desk }, () => {})
    expect(ofType(events, 'takeover_started')).toEqual([])
    expect(model.prompts()[1]).toContain('Invalid input for hand_over')
  })

  test('without a desk hand_over is not offered, nor can it be called', async () => {
    const model = scriptedModel([{ output: handOver }, { output: finish }])
    const events = await runWith({ task: 't', model, browser: fakeBrowser() }, () => {})
    expect(ofType(events, 'takeover_started')).toEqual([])
    expect(JSON.stringify(model.doStreamCalls[0]?.tools)).not.toContain('hand_over')
  })

  test('hand-overs are capped: the fourth is refused with none left, the tool says so; a person’s own are not counted', async () => {
    const desk = createHandoverDesk()
    const model = scriptedModel([
      { output: handOver },
      { output: click },
      { output: handOver },
      { output: handOver },
      { output: handOver },
      { output: finish },
    ])
    let clicked = false
    const events = await runWith({ task: 't', model, browser: fakeBrowser(), handover: desk }, (event) => {
      // A person takes over once on their own, between the model's first and second hand-over.
      if (event.type === 'tool_call_start' && event.tool === 'click' && !clicked) {
        clicked = true
        desk.takeOver()
      }
      if (event.type === 'takeover_started') desk.handBack()
    })
    expect(ofType(events, 'takeover_started').map((event) => event.by)).toEqual([
      'model',
      'user',
      'model',
      'model',
    ])
    const results = ofType(events, 'tool_call_result')
    expect(results.map((result) => result.ok)).toEqual([true, true, true, true, false, true])
    expect(results[0]?.result).toContain('You may ask for a person twice more in this run.')
    expect(results[3]?.result).toContain('That was the last hand-over this run may ask for.')
    expect(results[4]?.result).toBe(
      'Not run: no hand-overs are left. This run may ask for a person 3 times and has; no person will come. Find another way, or finish with success: false.',
    )
    expect(model.prompts()[5]).toContain('Not run: no hand-overs are left.')
    // Actions are described once, in the system prompt's list of them (the tool schema gives their shapes).
    const told = JSON.stringify(model.doStreamCalls[0]?.prompt)
    expect(told).toContain('At most 3 per run.')
    expect(doneOf(events).reason).toBe('model_stop')
  })

  test('with maxHandovers 0 the model is not offered hand_over; a person may still take over', async () => {
    const desk = createHandoverDesk({ maxHandovers: 0 })
    const model = scriptedModel([{ output: click }, { output: finish }])
    const events = await runWith({ task: 't', model, browser: fakeBrowser(), handover: desk }, (event) => {
      if (event.type === 'tool_call_start') desk.takeOver()
      if (event.type === 'takeover_started') desk.handBack()
    })
    expect(JSON.stringify(model.doStreamCalls[0]?.tools)).not.toContain('hand_over')
    expect(ofType(events, 'takeover_started')).toMatchObject([{ by: 'user' }])
  })

  test('handing back when nobody asked is refused; asking twice is one takeover', () => {
    const desk = createHandoverDesk()
    expect(desk.handBack()).toBe(false)
    desk.takeOver()
    desk.takeOver()
    expect(desk.requested).toBe(true)
    const takeover = desk.begin()
    expect(desk.requested).toBe(false)
    desk.takeOver()
    expect(desk.requested).toBe(false)
    expect(desk.handBack()).toBe(true)
    takeover.end()
    expect(desk.handBack()).toBe(false)
  })
})

describe('a recorded hand_over', () => {
  const recording: Recording = {
    version: 1,
    task: 'Sign in',
    steps: [
      { step: 1, tool: 'hand_over', input: { reason: 'Enter the code sent to your phone' } },
      { step: 2, tool: 'done', input: { text: 'Signed in.', success: true } },
    ],
  }

  test('a run records the hand_over call, and its Playwright export pauses for a person', async () => {
    const desk = createHandoverDesk()
    const model = scriptedModel([{ output: handOver }, { output: finish }])
    const events = await runWith({ task: 't', model, browser: fakeBrowser(), handover: desk }, (event) => {
      if (event.type === 'takeover_started') desk.handBack()
    })
    const recorded = recordingOf(events)
    expect(recorded.steps[0]).toMatchObject({ tool: 'hand_over', input: { reason: 'Solve the captcha' } })
    expect(playwrightSpec(recorded)).toContain(
      '// A person takes over here: Solve the captcha\n    await page.pause()',
    )
  })

  test('replaying it waits for a person the same way', async () => {
    const desk = createHandoverDesk()
    const events = await runWith({ replay: recording, browser: null, handover: desk }, (event) => {
      if (event.type === 'takeover_started') desk.handBack()
    })
    expect(ofType(events, 'takeover_started')).toMatchObject([
      { by: 'model', reason: 'Enter the code sent to your phone' },
    ])
    expect(ofType(events, 'tool_call_result')[0]).toMatchObject({ ok: true, source: 'replay' })
    expect(doneOf(events)).toMatchObject({ reason: 'model_stop', result: { text: 'Signed in.' } })
  })

  test('with nobody who may take over, the replay ends error naming the step', async () => {
    const events = await runWith({ replay: recording, browser: null }, () => {})
    expect(doneOf(events)).toMatchObject({
      reason: 'error',
      result: {
        text: 'The replay stopped at step 1 (hand_over: Enter the code sent to your phone): it needs a person, and no person can take over in this run.',
      },
    })
  })
})
