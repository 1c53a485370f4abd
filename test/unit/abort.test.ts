import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { runAgent } from '../../src/agent/loop.ts'
import type { RunOptions } from '../../src/agent/loop-types.ts'
import type { AgentEvent, EventType } from '../../src/events/events.ts'
import { defineTool, sleep } from '../../src/tool.ts'
import { fakeBrowser } from '../support/fake-browser.ts'
import { doneOf, liveHandles, ofType } from '../support/run.ts'
import { agentOutput, scriptedModel } from '../support/scripted-model.ts'

/**
 * Runs until `trigger` appears, aborts shortly after (once the run is inside the
 * next transition), and returns every event plus what the run left behind.
 */
async function abortWhen(trigger: EventType, options: Omit<RunOptions, 'signal'>) {
  const handlesBefore = liveHandles().length
  const controller = new AbortController()
  const events: AgentEvent[] = []
  for await (const event of runAgent({ stuck: false, ...options, signal: controller.signal })) {
    events.push(event)
    if (event.type === trigger) setTimeout(() => controller.abort(), 30)
  }
  return { events, handlesLeft: liveHandles().length - handlesBefore }
}

describe('an abort ends the run with user_abort in every state, leaving nothing running', () => {
  test('while the model streams', async () => {
    const browser = fakeBrowser()
    const model = scriptedModel([{ output: agentOutput({ click: { ref: 'b1' } }), hang: true }])
    const { events, handlesLeft } = await abortWhen('text_delta', {
      task: 't',
      model,
      browser: async () => browser,
    })
    expect(doneOf(events).reason).toBe('user_abort')
    expect(ofType(events, 'tool_call_start')).toEqual([])
    expect(browser.closed).toBe(1)
    expect(handlesLeft).toBeLessThanOrEqual(0)
  })

  test('while a slow tool runs: the tool sees the signal and stops', async () => {
    let toolSignal: AbortSignal | undefined
    const slow = defineTool({
      name: 'slow',
      description: 'slow',
      input: z.object({}),
      execute: (_input, ctx) =>
        new Promise((_resolve, reject) => {
          toolSignal = ctx.signal
          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true })
        }),
    })
    const model = scriptedModel([{ output: agentOutput({ slow: {} }) }])
    const { events, handlesLeft } = await abortWhen('tool_call_start', {
      task: 't',
      model,
      browser: null,
      tools: { add: [slow] },
    })
    expect(doneOf(events).reason).toBe('user_abort')
    expect(toolSignal?.aborted).toBe(true)
    expect(ofType(events, 'warning')).toEqual([])
    expect(handlesLeft).toBeLessThanOrEqual(0)
  })

  test('while waiting', async () => {
    const model = scriptedModel([{ output: agentOutput({ wait: { seconds: 10 } }) }])
    const { events, handlesLeft } = await abortWhen('tool_call_start', { task: 't', model, browser: null })
    expect(doneOf(events).reason).toBe('user_abort')
    expect(ofType(events, 'tool_call_result')).toEqual([]) // the 10 s wait was cut short, not waited out
    expect(handlesLeft).toBeLessThanOrEqual(0)
  })

  test('while confirming: the confirmation wait is released', async () => {
    let confirmSignal: AbortSignal | undefined
    const model = scriptedModel([{ output: agentOutput({ execute_javascript: { script: '1' } }) }])
    const { events, handlesLeft } = await abortWhen('confirmation_required', {
      task: 't',
      model,
      browser: fakeBrowser(),
      confirm: (_request, signal) => {
        confirmSignal = signal
        return new Promise(() => {})
      },
    })
    expect(doneOf(events).reason).toBe('user_abort')
    expect(confirmSignal?.aborted).toBe(true)
    expect(handlesLeft).toBeLessThanOrEqual(0)
  })

  test('while observing the page', async () => {
    const browser = fakeBrowser({ observe: (signal) => sleep(300, signal) })
    const model = scriptedModel([])
    const { events } = await abortWhen('run_started', { task: 't', model, browser })
    expect(doneOf(events).reason).toBe('user_abort')
    expect(model.doStreamCalls).toHaveLength(0)
  })

  test('before the run starts', async () => {
    const controller = new AbortController()
    controller.abort()
    const events: AgentEvent[] = []
    for await (const event of runAgent({
      task: 't',
      model: scriptedModel([]),
      browser: null,
      signal: controller.signal,
    })) {
      events.push(event)
    }
    expect(events.map((e) => e.type)).toEqual(['run_started', 'done'])
    expect(doneOf(events).reason).toBe('user_abort')
  })

  test('a tool that ignores the abort is named in a warning after 3 s, then the run ends', async () => {
    const browser = fakeBrowser({ slowToolIgnoresAbort: true })
    const model = scriptedModel([{ output: agentOutput({ slow_task: { seconds: 4 } }) }])
    const { events } = await abortWhen('tool_call_start', { task: 't', model, browser })
    const warning = ofType(events, 'warning').find((w) => w.code === 'abort_deadline')
    expect(warning?.message).toContain('slow_task')
    expect(events.indexOf(warning!)).toBe(events.length - 2)
    expect(doneOf(events).reason).toBe('user_abort')
  }, 10_000)
})
