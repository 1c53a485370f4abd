import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { runAgent } from '../../src/agent/loop.ts'
import type { RunOptions } from '../../src/agent/run/run-options.ts'
import type { AgentEvent, EventType } from '../../src/events/events.ts'
import { defineTool, sleep } from '../../src/tool.ts'
import { fakeBrowser } from '../support/fake-browser.ts'
import { agentOutput, scriptedModel } from '../support/models/scripted-model.ts'
import { doneOf, ofType } from '../support/run.ts'
import { watchRun } from './run-resources.ts'

/**
 * Runs until `trigger` appears, aborts shortly after (once the run is inside the
 * next transition), and returns every event plus what the run left behind: its
 * timers still pending and its listeners still on the caller's signal.
 */
async function abortWhen(trigger: EventType, options: Omit<RunOptions, 'signal'>) {
  const controller = new AbortController()
  const watch = watchRun(controller.signal)
  const events: AgentEvent[] = []
  try {
    for await (const event of runAgent({ stuck: false, ...options, signal: controller.signal })) {
      events.push(event)
      if (event.type === trigger) setTimeout(() => controller.abort(), 30)
    }
    return { events, timersLeft: watch.pendingTimers(), listenersLeft: watch.callerListeners() }
  } finally {
    watch.stop()
  }
}

describe('an abort ends the run with user_abort in every state, leaving nothing running', () => {
  test('while the model streams', async () => {
    const browser = fakeBrowser()
    const model = scriptedModel([{ output: agentOutput({ click: { ref: 'b1' } }), hang: true }])
    const { events, timersLeft, listenersLeft } = await abortWhen('text_delta', {
      task: 't',
      model,
      browser: async () => browser,
    })
    expect(doneOf(events).reason).toBe('user_abort')
    expect(ofType(events, 'tool_call_start')).toEqual([])
    expect(browser.closed).toBe(1)
    expect(timersLeft).toBe(0)
    expect(listenersLeft).toBe(0)
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
    const { events, timersLeft, listenersLeft } = await abortWhen('tool_call_start', {
      task: 't',
      model,
      browser: null,
      tools: { add: [slow] },
    })
    expect(doneOf(events).reason).toBe('user_abort')
    expect(toolSignal?.aborted).toBe(true)
    expect(ofType(events, 'warning')).toEqual([])
    expect(timersLeft).toBe(0)
    expect(listenersLeft).toBe(0)
  })

  test('while waiting', async () => {
    const model = scriptedModel([{ output: agentOutput({ wait: { seconds: 10 } }) }])
    const { events, timersLeft, listenersLeft } = await abortWhen('tool_call_start', {
      task: 't',
      model,
      browser: null,
    })
    expect(doneOf(events).reason).toBe('user_abort')
    expect(ofType(events, 'tool_call_result')).toEqual([]) // the 10 s wait was cut short, not waited out
    expect(timersLeft).toBe(0)
    expect(listenersLeft).toBe(0)
  })

  test('while confirming: the confirmation wait is released', async () => {
    let confirmSignal: AbortSignal | undefined
    const model = scriptedModel([{ output: agentOutput({ execute_javascript: { script: '1' } }) }])
    const { events, timersLeft, listenersLeft } = await abortWhen('confirmation_required', {
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
    expect(timersLeft).toBe(0)
    expect(listenersLeft).toBe(0)
  })

  test('while observing the page', async () => {
    const browser = fakeBrowser({ observe: (signal) => sleep(300, signal) })
    const model = scriptedModel([])
    const { events, timersLeft, listenersLeft } = await abortWhen('run_started', {
      task: 't',
      model,
      browser,
    })
    expect(doneOf(events).reason).toBe('user_abort')
    expect(model.doStreamCalls).toHaveLength(0)
    expect(timersLeft).toBe(0)
    expect(listenersLeft).toBe(0)
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

  test('a tool that ignores the abort is named in a warning after abortDeadlineMs, then the run ends', async () => {
    let finishStubborn = () => {}
    const stubborn = defineTool({
      name: 'stubborn',
      description: 'Ignores the signal.',
      input: z.object({}),
      execute: () =>
        new Promise((resolve) => {
          finishStubborn = () => resolve({ ok: true, text: 'finished late' })
        }),
    })
    const model = scriptedModel([{ output: agentOutput({ stubborn: {} }) }])
    const { events } = await abortWhen('tool_call_start', {
      task: 't',
      model,
      browser: null,
      tools: { add: [stubborn] },
      abortDeadlineMs: 20,
    })
    // The run ended while the tool was still running: only the wait for it was cut.
    finishStubborn()
    const warning = ofType(events, 'warning').find((w) => w.code === 'abort_deadline')
    expect(warning?.message).toContain('The stubborn action is still running 0.02 s after the abort')
    expect(warning && events.indexOf(warning)).toBe(events.length - 2)
    expect(ofType(events, 'tool_call_result')).toEqual([])
    expect(doneOf(events).reason).toBe('user_abort')
  })
})
