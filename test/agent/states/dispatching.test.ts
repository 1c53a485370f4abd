import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { runAgent } from '../../../src/agent/loop.ts'
import type { SubAgentRunner } from '../../../src/agent/run/run-context.ts'
import type { RunOptions } from '../../../src/agent/run/run-options.ts'
import type { AgentState, Effect } from '../../../src/agent/run/run-state.ts'
import type { AgentEvent } from '../../../src/events/events.ts'
import { defineTool } from '../../../src/tool.ts'
import { dispatching } from '../../support/applied-states.ts'
import { agentOutput, scriptedModel } from '../../support/models/scripted-model.ts'
import { collect, doneOf, handBuiltContext, ofType, seqProblems } from '../../support/run.ts'
import {
  childEvents,
  dispatch,
  finish,
  ownEvents,
  routedModel,
  sawChildren,
} from '../../support/sub-agents.ts'
import { watchRun } from '../run-resources.ts'

/** A step that costs a turn and does nothing: lets a child spend its budget without a browser. */
const noteTool = defineTool({
  name: 'note',
  description: 'Write a note.',
  input: z.object({ text: z.string() }),
  async execute(input) {
    return { ok: true, text: `Noted: ${input.text}` }
  },
})
const note = { output: agentOutput({ note: { text: 'still looking' } }) }

const shops = ['Shop A', 'Shop B', 'Shop C']
const prices: Record<string, string> = { 'Shop A': '$12', 'Shop B': '$9', 'Shop C': '$15' }
const parentTask = 'Compare the price of the kettle on three shops'

/** The parent dispatches one task per shop, then answers from its children's results. */
function comparingModel(child: (task: string) => Parameters<typeof finish> | 'fail' | 'hang') {
  return routedModel((task, prompt) => {
    if (task === parentTask) {
      if (!sawChildren(prompt)) return dispatch(shops.map((shop) => ({ task: `Price on ${shop}` })))
      const found = [...prompt.matchAll(/(Shop [ABC]) costs (\$\d+)/g)].map(
        ([, shop, price]) => `${shop} ${price}`,
      )
      return finish(`Prices: ${found.join(', ')}`)
    }
    const answer = child(task)
    if (answer === 'fail') return { error: { status: 400, message: 'The model refused this task.' } }
    if (answer === 'hang') return { hang: true, output: agentOutput({ note: { text: 'x' } }) }
    return finish(...answer)
  })
}

function options(model: RunOptions['model'], extra: Partial<RunOptions> = {}): RunOptions {
  return {
    task: parentTask,
    model,
    browser: null,
    stuck: false,
    subAgents: { max: 3 },
    tools: { add: [noteTool] },
    ...extra,
  }
}

const shopOf = (task: string) => task.replace('Price on ', '')

describe('the dispatching state, on a hand-built context', () => {
  test('starts the children, forwards their events stamped as theirs, and returns one result to thinking', async () => {
    const childModel = routedModel((task) => finish(`${task}: done`))
    const runner: SubAgentRunner = {
      max: 3,
      maxDepth: 1,
      depth: 0,
      start: (spec, signal) =>
        runAgent({
          task: spec.task,
          model: childModel,
          browser: null,
          stuck: false,
          maxTurns: spec.maxTurns,
          signal,
        }),
    }
    const ctx = handBuiltContext(scriptedModel([]), { subAgents: runner, maxTurns: 10 })
    ctx.run.step = 1
    ctx.run.history.push({ step: 1, url: '', fingerprint: '' })
    const input = { tasks: [{ task: 'First' }, { task: 'Second', maxTurns: 2 }] }
    let state: AgentState = {
      type: 'dispatching',
      phase: 'start',
      call: { callId: 'call_1', tool: 'dispatch_agent', input },
      queue: [],
    }
    const effects: Effect[] = []
    const phases: string[] = []
    while (state.type === 'dispatching') {
      phases.push(state.phase)
      const result = await dispatching(state, ctx)
      effects.push(...result.effects)
      state = result.next
    }
    expect(state.type).toBe('thinking')
    expect(phases[0]).toBe('start')
    expect(phases.slice(1).every((phase) => phase === 'awaiting-children')).toBe(true)

    const forwarded = effects.filter((effect): effect is AgentEvent => 'runId' in effect)
    const starts = ofType(forwarded, 'run_started')
    expect(starts.map((event) => [event.task, event.childIndex, event.depth, event.parentRunId])).toEqual(
      expect.arrayContaining([
        ['First', 0, 1, 'run_test'],
        ['Second', 1, 1, 'run_test'],
      ]),
    )
    // Budget: 10 turns, 1 spent, 1 kept for the parent's answer: 4 each; a task may ask for fewer.
    expect(Object.fromEntries(starts.map((event) => [event.task, event.maxTurns]))).toEqual({
      First: 4,
      Second: 2,
    })
    // Each child is a run of its own: its own runId on all its events.
    for (const start of starts)
      expect(
        forwarded
          .filter((event) => event.childIndex === start.childIndex)
          .every((e) => e.runId === start.runId),
      ).toBe(true)

    const result = effects.at(-1)
    expect(result).toMatchObject({ type: 'tool_call_result', callId: 'call_1', ok: true })
    const text = result?.type === 'tool_call_result' ? result.result : ''
    expect(text).toContain('All 2 sub-agents finished.')
    expect(text).toContain('1. "First" (model_stop, success: true, 1 steps): First: done')
    expect(text).toContain('2. "Second" (model_stop, success: true, 1 steps): Second: done')
    // The children's turns and tokens are the parent's.
    expect(ctx.run.step).toBe(3)
    expect(ctx.run.usage.totalTokens).toBe(240)
    expect(ctx.run.inFlight).toBeUndefined()
  })

  test('refuses a dispatch the remaining turns cannot pay for, as a result the model reads', async () => {
    const ctx = handBuiltContext(scriptedModel([]), {
      maxTurns: 3,
      subAgents: {
        max: 3,
        maxDepth: 1,
        depth: 0,
        start: () => {
          throw new Error('no child may start')
        },
      },
    })
    ctx.run.step = 1
    const { next, effects } = await dispatching(
      {
        type: 'dispatching',
        phase: 'start',
        call: { callId: 'call_1', tool: 'dispatch_agent', input: { tasks: [{ task: 'a' }, { task: 'b' }] } },
        queue: [],
      },
      ctx,
    )
    expect(next.type).toBe('thinking')
    expect(effects).toEqual([
      expect.objectContaining({
        type: 'tool_call_result',
        ok: false,
        result: expect.stringContaining('2 sub-tasks need at least 2 steps and 1 remain'),
      }),
    ])
  })
  test('refuses shareSession when the run has no browser session to share', async () => {
    const ctx = handBuiltContext(scriptedModel([]), {
      subAgents: {
        max: 3,
        maxDepth: 1,
        depth: 0,
        start: () => {
          throw new Error('no child may start')
        },
      },
    })
    const input = { tasks: [{ task: 'a', shareSession: true }] }
    const { effects } = await dispatching(
      {
        type: 'dispatching',
        phase: 'start',
        call: { callId: 'call_1', tool: 'dispatch_agent', input },
        queue: [],
      },
      ctx,
    )
    expect(effects).toEqual([
      expect.objectContaining({ ok: false, result: expect.stringContaining('no browser session to share') }),
    ])
  })
})

describe('runAgent with sub-agents', () => {
  test('three children in parallel: events forwarded live and stamped, seq gapless, answer uses all three', async () => {
    const model = comparingModel((task) => [`${shopOf(task)} costs ${prices[shopOf(task)]}`])
    const events = await collect(options(model))
    expect(seqProblems(events)).toEqual([])
    expect(doneOf(events)).toMatchObject({
      reason: 'model_stop',
      result: { success: true, text: 'Prices: Shop A $12, Shop B $9, Shop C $15' },
    })
    expect(ownEvents(events).every((event) => event.runId === events[0]?.runId)).toBe(true)
    for (const index of [0, 1, 2]) {
      const child = childEvents(events, index)
      expect(child[0]).toMatchObject({
        type: 'run_started',
        task: `Price on ${shops[index]}`,
        parentRunId: events[0]?.runId,
      })
      expect(child.at(-1)).toMatchObject({ type: 'done', reason: 'model_stop' })
      expect(child[0]?.runId).not.toBe(events[0]?.runId)
    }
    // The dispatch call's result follows every child's end.
    const lastChildDone = events.findLastIndex((event) => event.type === 'done' && event.parentRunId)
    const result = events.findIndex(
      (event) =>
        event.type === 'tool_call_result' &&
        event.parentRunId === undefined &&
        event.result.includes('sub-agents'),
    )
    expect(result).toBeGreaterThan(lastChildDone)
    // The parent's usage counts its children's: 2 own calls + 3 children's, 120 tokens each.
    expect(doneOf(events).usage.totalTokens).toBe(5 * 120)
  })

  test('one child fails, the others succeed: the failure is a result, not the parent failing', async () => {
    const model = comparingModel((task) =>
      shopOf(task) === 'Shop B' ? 'fail' : [`${shopOf(task)} costs ${prices[shopOf(task)]}`],
    )
    const events = await collect(options(model))
    expect(childEvents(events, 1).at(-1)).toMatchObject({ type: 'done', reason: 'error' })
    const result = ofType(ownEvents(events), 'tool_call_result').find((event) =>
      event.result.includes('sub-agents'),
    )
    expect(result?.ok).toBe(true)
    expect(result?.result).toContain('2 of 3 sub-agents succeeded; 1 did not.')
    expect(result?.result).toContain('2. "Price on Shop B" (error, success: false')
    expect(doneOf(events)).toMatchObject({
      reason: 'model_stop',
      result: { text: 'Prices: Shop A $12, Shop C $15' },
    })
  })

  test('aborting the parent mid-dispatch ends every child user_abort and leaves nothing running', async () => {
    const controller = new AbortController()
    const watch = watchRun(controller.signal)
    const events: AgentEvent[] = []
    try {
      for await (const event of runAgent(
        options(
          comparingModel(() => 'hang'),
          { signal: controller.signal },
        ),
      )) {
        events.push(event)
        // Every child is waiting on its model: abort.
        if (ofType(events, 'step_started').filter((e) => e.parentRunId).length === 3) controller.abort()
      }
      for (const index of [0, 1, 2])
        expect(childEvents(events, index).at(-1)).toMatchObject({ type: 'done', reason: 'user_abort' })
      expect(doneOf(events)).toMatchObject({ reason: 'user_abort' })
      expect(doneOf(events).parentRunId).toBeUndefined()
      expect(seqProblems(events)).toEqual([])
      expect(watch.pendingTimers()).toBe(0)
      expect(watch.callerListeners()).toBe(0)
    } finally {
      watch.stop()
    }
  })

  test('a child cannot spend more than its share of turns or tokens, and the parent pays for both', async () => {
    const turns = routedModel((task, prompt) => {
      if (task !== parentTask) return note
      return sawChildren(prompt) ? finish('done') : dispatch([{ task: 'one', maxTurns: 50 }, { task: 'two' }])
    })
    const events = await collect(options(turns, { maxTurns: 8 }))
    // 8 turns, 1 spent by the parent, 1 kept for its answer: 3 each, whatever the task asked.
    for (const index of [0, 1]) {
      expect(childEvents(events, index)[0]).toMatchObject({ type: 'run_started', maxTurns: 3 })
      expect(childEvents(events, index).at(-1)).toMatchObject({ type: 'done', reason: 'max_turns', steps: 3 })
    }
    expect(ofType(ownEvents(events), 'step_started').map((event) => event.step)).toEqual([1, 8])
    expect(doneOf(events)).toMatchObject({ reason: 'model_stop', steps: 8 })

    const tokens = routedModel((task, prompt) => {
      if (task !== parentTask) return note
      return sawChildren(prompt) ? finish('done') : dispatch([{ task: 'one' }])
    })
    const spent = await collect(options(tokens, { maxTurns: 40, maxSessionTokens: 1_000 }))
    // 880 tokens left after the parent's first call, shared with the parent: 440 for the child,
    // which stops at the first call that reaches it (120 each).
    const child = childEvents(spent, 0)
    expect(child.at(-1)).toMatchObject({
      type: 'done',
      reason: 'budget_exceeded',
      usage: { totalTokens: 480 },
    })
    expect(doneOf(spent).usage.totalTokens).toBe(120 + 480 + 120)
  })

  test('a child cannot dispatch when maxDepth is 1; with maxDepth 2 a grandchild is forwarded at depth 2', async () => {
    const nesting = () =>
      routedModel((task, prompt) => {
        if (task === parentTask || task === 'middle') {
          return sawChildren(prompt)
            ? finish(`${task} ends`)
            : dispatch([{ task: task === parentTask ? 'middle' : 'leaf' }])
        }
        return finish('leaf ends')
      })
    const shallow = await collect(options(nesting(), { subAgents: { max: 3, maxDepth: 1 } }))
    expect(shallow.some((event) => (event.depth ?? 0) > 1)).toBe(false)
    const middle = childEvents(shallow, 0)
    // The child is not offered the action: its attempt is unusable output, and it never starts a run.
    expect(ofType(middle, 'error')[0]?.message).toContain('dispatch_agent')
    expect(ofType(middle, 'run_started')).toHaveLength(1)

    const deep = await collect(options(nesting(), { subAgents: { max: 3, maxDepth: 2 } }))
    const middleStart = ofType(deep, 'run_started').find((event) => event.task === 'middle')
    const leafStart = ofType(deep, 'run_started').find((event) => event.task === 'leaf')
    expect(leafStart).toMatchObject({ depth: 2, childIndex: 0, parentRunId: middleStart?.runId })
    expect(seqProblems(deep)).toEqual([])
    expect(doneOf(deep).result.text).toBe(`${parentTask} ends`)
  })
})
