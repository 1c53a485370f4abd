import type { LanguageModelV4StreamPart } from '@ai-sdk/provider'
import { MockLanguageModelV4 } from 'ai/test'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { runAgent } from '../../src/agent/loop.ts'
import type { StuckDetector } from '../../src/agent/stuck/stuck-detector.ts'
import { type AgentEvent, AgentEventSchema } from '../../src/events/events.ts'
import { defineTool } from '../../src/tool.ts'
import { fakeBrowser } from '../support/fake-browser.ts'
import { agentOutput, scriptedModel } from '../support/models/scripted-model.ts'
import { collect, doneOf, ofType, seqProblems } from '../support/run.ts'
import { watchRun } from './run-resources.ts'

const click = agentOutput({ click: { ref: 'b1' } }, 'clicked')
const finish = (success = true) =>
  agentOutput({ done: { text: success ? 'All done.' : 'Could not.', success } })

describe('runAgent reaches every DoneReason', () => {
  test('model_stop: the model calls done; events are valid, numbered and end with done', async () => {
    const browser = fakeBrowser()
    const events = await collect({
      task: 'Add one item',
      model: scriptedModel([{ output: click }, { output: finish() }]),
      browser,
    })
    for (const event of events) expect(() => AgentEventSchema.parse(event)).not.toThrow()
    expect(seqProblems(events)).toEqual([])
    expect(events[0]?.type).toBe('run_started')
    expect(doneOf(events)).toMatchObject({
      reason: 'model_stop',
      result: { success: true, text: 'All done.' },
      steps: 2,
      usage: { inputTokens: 200, outputTokens: 40, totalTokens: 240 },
    })
    expect(browser.calls).toEqual([{ tool: 'click', input: { ref: 'b1' } }])
    expect(browser.closed).toBe(0) // a session the caller passed in is the caller's to close
  })

  test('done with success: false is a clean ending, not an error', async () => {
    const events = await collect({
      task: 't',
      model: scriptedModel([{ output: finish(false) }]),
      browser: null,
    })
    expect(doneOf(events)).toMatchObject({ reason: 'model_stop', result: { success: false } })
    expect(ofType(events, 'error')).toEqual([])
  })

  test('max_turns, with observations to the model when 5 and 2 steps remain', async () => {
    const model = scriptedModel(Array.from({ length: 6 }, () => ({ output: click })))
    const events = await collect({ task: 't', model, browser: fakeBrowser(), maxTurns: 6 })
    expect(doneOf(events)).toMatchObject({ reason: 'max_turns', steps: 6, result: { success: false } })
    expect(doneOf(events).result.text).toContain('Last memory: clicked')
    const countdown = ofType(events, 'warning').filter((w) => w.code === 'steps_remaining')
    expect(countdown.map((w) => w.message.slice(0, 16))).toEqual(['5 steps remain, ', '2 steps remain, '])
    const prompts = model.prompts()
    expect(prompts[1]).toContain('5 steps remain')
    expect(prompts[4]).toContain('2 steps remain')
    expect(prompts[2]).not.toContain('steps remain')
  })

  test('budget_exceeded when the session passes maxSessionTokens', async () => {
    const model = scriptedModel([{ output: click, usage: { input: 500, output: 100 } }, { output: click }])
    const events = await collect({ task: 't', model, browser: fakeBrowser(), maxSessionTokens: 550 })
    expect(doneOf(events)).toMatchObject({ reason: 'budget_exceeded', steps: 1, usage: { totalTokens: 600 } })
  })

  test('error when the model keeps returning unusable output', async () => {
    const model = scriptedModel([
      { text: 'I think I should click.' },
      { output: '{"action": 5}' },
      { text: 'hmm' },
    ])
    const events = await collect({ task: 't', model, browser: fakeBrowser() })
    expect(doneOf(events)).toMatchObject({ reason: 'error', steps: 3 })
    expect(doneOf(events).result.text).toMatch(/unusable output 3 times/)
    expect(ofType(events, 'error').map((e) => e.retryable)).toEqual([true, true, true])
  })

  test('an unusable output is shown to the model, which recovers', async () => {
    const model = scriptedModel([{ output: agentOutput({ fly: {} }) }, { output: finish() }])
    const events = await collect({ task: 't', model, browser: fakeBrowser() })
    expect(doneOf(events).reason).toBe('model_stop')
    expect(model.prompts()[1]).toContain('Unknown action \\"fly\\"')
  })

  test('loop_detected when the stuck detector ends the run', async () => {
    const stuck: StuckDetector = {
      evaluate: async (input) =>
        input.step === 2
          ? {
              events: [{ type: 'stuck_detected', kind: 'stall', step: 2, detail: 'page unchanged' }],
              notes: [],
              end: { text: 'Stuck on the same page; tried Escape and reload.' },
            }
          : { events: [], notes: [] },
    }
    const events = await collect({
      task: 't',
      model: scriptedModel([{ output: click }]),
      browser: fakeBrowser(),
      stuck: () => stuck,
    })
    expect(ofType(events, 'stuck_detected')).toHaveLength(1)
    expect(doneOf(events)).toMatchObject({
      reason: 'loop_detected',
      result: { success: false, text: /Stuck/ },
    })
  })

  test('one options object reused for two runs gives each run a detector of its own', async () => {
    const stepsSeen: number[][] = []
    const options = {
      task: 't',
      browser: fakeBrowser(),
      stuck: (): StuckDetector => {
        const steps: number[] = []
        stepsSeen.push(steps)
        return {
          evaluate: async (input) => {
            steps.push(input.step)
            return { events: [], notes: [] }
          },
        }
      },
    }
    await collect({ ...options, model: scriptedModel([{ output: click }, { output: finish() }]) })
    await collect({ ...options, model: scriptedModel([{ output: finish() }]) })
    expect(stepsSeen).toEqual([[1, 2], [1]])
  })

  test('error when the browser cannot start, said plainly', async () => {
    const events = await collect({
      task: 't',
      model: scriptedModel([]),
      browser: async () => {
        throw new Error('No Chromium found. Install chromium.')
      },
    })
    expect(doneOf(events)).toMatchObject({ reason: 'error', steps: 0 })
    expect(doneOf(events).result.text).toContain('No Chromium found')
  })

  test('user_abort when the caller aborts', async () => {
    const controller = new AbortController()
    const model = scriptedModel([{ output: click, hang: true }])
    const events = []
    for await (const event of runAgent({
      task: 't',
      model,
      browser: fakeBrowser(),
      signal: controller.signal,
      stuck: false,
    })) {
      events.push(event)
      if (event.type === 'text_delta') controller.abort()
    }
    expect(doneOf(events).reason).toBe('user_abort')
  })
})

describe('model failures', () => {
  test('429 with Retry-After, 500 and a network error are retried; the run goes on', async () => {
    const model = scriptedModel([
      { error: { status: 429, headers: { 'retry-after-ms': '5' } } },
      { error: { status: 500 } },
      { error: { network: true } },
      { output: finish() },
    ])
    const events = await collect({
      task: 't',
      model,
      browser: fakeBrowser(),
      retry: { maxRetries: 3, baseDelayMs: 1, maxDelayMs: 20 },
    })
    expect(doneOf(events)).toMatchObject({ reason: 'model_stop', steps: 1 })
    const errors = ofType(events, 'error')
    expect(errors.map((e) => e.retryable)).toEqual([true, true, true])
    expect(errors[0]?.message).toContain('Retrying in 0.0 s')
    expect(ofType(events, 'step_started')).toHaveLength(1)
  })

  test('retries are bounded', async () => {
    const model = scriptedModel(Array.from({ length: 5 }, () => ({ error: { status: 503 } })))
    const events = await collect({
      task: 't',
      model,
      browser: null,
      retry: { maxRetries: 2, baseDelayMs: 1 },
    })
    expect(doneOf(events)).toMatchObject({ reason: 'error', result: { text: /after 3 attempts/ } })
    expect(model.remaining()).toBe(2)
  })

  test('401 is not retried', async () => {
    const model = scriptedModel([
      { error: { status: 401, message: 'Incorrect API key' } },
      { output: finish() },
    ])
    const events = await collect({ task: 't', model, browser: null })
    expect(doneOf(events)).toMatchObject({ reason: 'error', result: { text: /Incorrect API key/ } })
    expect(model.remaining()).toBe(1)
  })
})

describe('tools', () => {
  test('a tool that throws becomes a failed result the model sees', async () => {
    const flaky = defineTool({
      name: 'flaky',
      description: 'Fails.',
      input: z.object({}),
      execute: async () => {
        throw new Error('socket closed')
      },
    })
    const model = scriptedModel([{ output: agentOutput({ flaky: {} }) }, { output: finish() }])
    const events = await collect({ task: 't', model, browser: null, tools: { add: [flaky] } })
    expect(ofType(events, 'tool_call_result')[0]).toMatchObject({
      ok: false,
      result: 'flaky failed: socket closed',
    })
    expect(model.prompts()[1]).toContain('FAILED: flaky failed: socket closed')
  })

  test('tools can be added, replaced and removed per run; done always stays', async () => {
    const customClick = defineTool({
      name: 'click',
      description: 'Custom click.',
      input: z.object({ ref: z.string() }),
      execute: async () => ({ ok: true, text: 'custom click' }),
    })
    const model = scriptedModel([
      { output: click },
      { output: agentOutput({ go_back: {} }) },
      { output: finish() },
    ])
    const events = await collect({
      task: 't',
      model,
      browser: fakeBrowser(),
      tools: { add: [customClick], remove: ['go_back', 'done'] },
    })
    const results = ofType(events, 'tool_call_result')
    expect(results[0]?.result).toBe('custom click')
    expect(ofType(events, 'error')[0]?.message).toContain('Unknown action "go_back"')
    expect(doneOf(events).reason).toBe('model_stop')
  })

  test('wait is accounted: 3 s or more in total becomes a warning observation', async () => {
    const model = scriptedModel([
      { output: agentOutput({ wait: { seconds: 1 } }) },
      { output: agentOutput({ wait: { seconds: 2 } }) },
      { output: finish() },
    ])
    const events = await collect({ task: 't', model, browser: null })
    const warnings = ofType(events, 'warning').filter((w) => w.code === 'wait_accumulated')
    expect(warnings).toHaveLength(1)
    expect(model.prompts()[2]).toContain('You have waited 3 s in total')
  })

  test('ask_user exists only with an answer callback; question and answer are events', async () => {
    const withoutCallback = scriptedModel([
      { output: agentOutput({ ask_user: { question: 'Which size?' } }) },
      { output: finish() },
    ])
    const refused = await collect({ task: 't', model: withoutCallback, browser: null })
    expect(ofType(refused, 'error')[0]?.message).toContain('Unknown action "ask_user"')

    const model = scriptedModel([
      { output: agentOutput({ ask_user: { question: 'Which size?' } }) },
      { output: finish() },
    ])
    const events = await collect({
      task: 't',
      model,
      browser: null,
      askUser: async (question) => (question.question === 'Which size?' ? 'Large' : '?'),
    })
    const question = ofType(events, 'question')[0]
    expect(question?.question).toBe('Which size?')
    expect(ofType(events, 'answer')[0]).toMatchObject({ questionId: question?.questionId, answer: 'Large' })
    expect(model.prompts()[1]).toContain('The user answered: Large')
  })
})

describe('streaming', () => {
  test('reflection text reaches the caller while the model response is still open', async () => {
    const memory = 'a long memory written slowly'
    const input = JSON.stringify(agentOutput({ done: { text: 'ok', success: true } }, memory))
    // Everything after the reflection is held back until the test releases it.
    const model = heldBackModel(input, input.indexOf(',"action"'))
    const events: AgentEvent[] = []
    let memorySoFar = ''
    let openWhenMemoryComplete: boolean | undefined
    for await (const event of runAgent({ task: 't', model, browser: null, stuck: false })) {
      events.push(event)
      if (event.type !== 'text_delta' || event.field !== 'memory') continue
      memorySoFar += event.text
      if (memorySoFar === memory) {
        openWhenMemoryComplete = !model.released()
        model.release()
      }
    }
    expect(openWhenMemoryComplete).toBe(true)
    expect(ofType(events, 'text_delta').filter((d) => d.field === 'memory').length).toBeGreaterThan(3)
    expect(doneOf(events).reason).toBe('model_stop')
    // An agent that holds deltas back until the response ends never gets there: the test times out.
  }, 5_000)
})

/**
 * A model whose one response streams `input` in 4-character tool-input
 * deltas, sending the characters from `holdFrom` on (and the end of the
 * response) only after `release()`. A caller that only sees deltas once the
 * response ends never sees them, and the run waits forever.
 */
function heldBackModel(input: string, holdFrom: number) {
  let release = () => {}
  let released = false
  const gate = new Promise<void>((resolve) => {
    release = () => {
      released = true
      resolve()
    }
  })
  const deltas = (text: string): LanguageModelV4StreamPart[] =>
    (text.match(/[\s\S]{1,4}/g) ?? []).map((delta) => ({ type: 'tool-input-delta', id: 'c1', delta }))
  const model = new MockLanguageModelV4({
    doStream: async () => ({
      stream: new ReadableStream<LanguageModelV4StreamPart>({
        async start(controller) {
          controller.enqueue({ type: 'stream-start', warnings: [] })
          controller.enqueue({ type: 'tool-input-start', id: 'c1', toolName: 'AgentOutput' })
          for (const part of deltas(input.slice(0, holdFrom))) controller.enqueue(part)
          await gate
          for (const part of deltas(input.slice(holdFrom))) controller.enqueue(part)
          controller.enqueue({ type: 'tool-input-end', id: 'c1' })
          controller.enqueue({ type: 'tool-call', toolCallId: 'c1', toolName: 'AgentOutput', input })
          controller.enqueue({
            type: 'finish',
            finishReason: { unified: 'tool-calls', raw: undefined },
            usage: {
              inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
              outputTokens: { total: 5, text: 5, reasoning: undefined },
            },
          })
          controller.close()
        },
      }),
    }),
  })
  return Object.assign(model, { release, released: () => released })
}

describe('the run leaves nothing behind', () => {
  test('an early return by the consumer closes the browser it opened and its timers and listeners', async () => {
    const caller = new AbortController()
    const watch = watchRun(caller.signal)
    const browser = fakeBrowser()
    try {
      const model = scriptedModel([{ output: agentOutput({ slow_task: { seconds: 30 } }) }])
      const run = runAgent({
        task: 't',
        model,
        browser: async () => browser,
        stuck: false,
        signal: caller.signal,
      })
      for await (const event of run) {
        if (event.type === 'tool_call_start') break
      }
      expect(browser.closed).toBe(1)
      expect(watch.pendingTimers()).toBe(0)
      expect(watch.callerListeners()).toBe(0)
    } finally {
      watch.stop()
    }
  })

  test("a run that finishes removes its listener from the caller's signal", async () => {
    const caller = new AbortController()
    const watch = watchRun(caller.signal)
    try {
      const events = await collect({
        task: 't',
        model: scriptedModel([{ output: click }, { output: finish() }]),
        browser: fakeBrowser(),
        signal: caller.signal,
      })
      expect(doneOf(events).reason).toBe('model_stop')
      expect(watch.pendingTimers()).toBe(0)
      expect(watch.callerListeners()).toBe(0)
    } finally {
      watch.stop()
    }
  })
})

describe('malformed output through the real AI SDK stream', () => {
  test('JSON in plain text and a tool called directly are repaired and run', async () => {
    const model = scriptedModel([
      { text: `I'll click: ${JSON.stringify(click)}` },
      { output: { ref: 'b1' }, toolName: 'click' },
      { output: JSON.stringify(JSON.stringify(finish())) },
    ])
    const browser = fakeBrowser()
    const events = await collect({ task: 't', model, browser })
    expect(ofType(events, 'error')).toEqual([])
    expect(browser.calls).toHaveLength(2)
    expect(doneOf(events).reason).toBe('model_stop')
  })
})
