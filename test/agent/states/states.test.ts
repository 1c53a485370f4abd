import { describe, expect, test } from 'vitest'
import { OutputAccumulator } from '../../../src/agent/output/output.ts'
import type { AgentContext } from '../../../src/agent/run/run-context.ts'
import type { ConfirmCallback } from '../../../src/agent/run/run-options.ts'
import type {
  ConfirmingState,
  ModelStream,
  ModelStreamPart,
  PendingCall,
  ReadyCallState,
} from '../../../src/agent/run/run-state.ts'
import { confirming, executing, streaming, thinking } from '../../support/applied-states.ts'
import { fakeBrowser } from '../../support/fake-browser.ts'
import { agentOutput, scriptedModel } from '../../support/models/scripted-model.ts'
import { handBuiltContext } from '../../support/run.ts'

function handStream(parts: ModelStreamPart[]): ModelStream & { cancelled: boolean } {
  const queue = [...parts]
  const stream = {
    cancelled: false,
    next: async (): Promise<IteratorResult<ModelStreamPart>> => {
      const part = queue.shift()
      return part ? { done: false, value: part } : { done: true, value: undefined }
    },
    cancel: () => {
      stream.cancelled = true
    },
  }
  return stream
}

const prompt = { system: 's', stable: ['u'], volatile: '' }

function streamingState(parts: ModelStreamPart[], attempt = 1) {
  const stream = handStream(parts)
  return {
    state: { type: 'streaming', stream, output: new OutputAccumulator(), attempt, prompt } as const,
    stream,
  }
}

/** A call whose checks passed, as executing's start phase or an approval hands it on. */
function ready(ctx: AgentContext, call: PendingCall): ReadyCallState {
  const tool = ctx.tools.get(call.tool)
  if (!tool) throw new Error(`no ${call.tool} tool in this context`)
  return { type: 'executing', phase: 'ready', call, tool, queue: [] }
}

describe('thinking', () => {
  test('starts a step: observes, records the step, assembles the prompt and starts the stream', async () => {
    const browser = fakeBrowser()
    const prompts: string[] = []
    const ctx = handBuiltContext(scriptedModel([]), {
      browser,
      startStream: (prompt) => {
        prompts.push(prompt.stable.join('') + prompt.volatile)
        return handStream([])
      },
    })
    ctx.run.notes.push('A note for the model.')
    const { next, effects } = await thinking(ctx)
    expect(next.type).toBe('streaming')
    expect(effects.map((e) => e.type)).toEqual(['step_started', 'observation'])
    expect(ctx.run.step).toBe(1)
    expect(ctx.run.history).toEqual([{ step: 1, url: 'http://fake.test/', fingerprint: 'fp0' }])
    expect(prompts[0]).toContain('<task>\nTest task\n</task>')
    expect(prompts[0]).toContain('A note for the model.')
    expect(prompts[0]).toContain('button "Add" [ref=b1]')
    expect(ctx.run.notes).toEqual([])
  })

  test('a page that cannot be observed is an error event and a note, not a crash', async () => {
    const prompts: string[] = []
    const ctx = handBuiltContext(scriptedModel([]), {
      browser: { ...fakeBrowser(), observe: async () => Promise.reject(new Error('Target closed')) },
      startStream: (prompt) => {
        prompts.push(prompt.stable.join('') + prompt.volatile)
        return handStream([])
      },
    })
    const { next, effects } = await thinking(ctx)
    expect(next.type).toBe('streaming')
    expect(effects.find((e) => e.type === 'error')).toMatchObject({ retryable: true })
    expect(prompts[0]).toContain('The page could not be observed: Target closed')
  })
})

describe('streaming', () => {
  test('each part is one transition; text becomes text_delta effects', async () => {
    const ctx = handBuiltContext(scriptedModel([]))
    const { state } = streamingState([{ type: 'text', text: 'Hello' }])
    const { next, effects } = await streaming(state, ctx)
    expect(next).toBe(state)
    expect(effects).toEqual([{ type: 'text_delta', field: 'text', text: 'Hello' }])
  })

  test('finish adds usage to the run and the step; the end of the stream queues the action', async () => {
    const ctx = handBuiltContext(scriptedModel([]), { browserTools: fakeBrowser().tools() })
    ctx.run.step = 1
    ctx.run.history.push({ step: 1, url: '', fingerprint: '' })
    const input = agentOutput({ click: { ref: 'b1' } }, 'm')
    const { state } = streamingState([
      { type: 'tool-call', toolName: 'AgentOutput', input, rawInput: JSON.stringify(input) },
      { type: 'finish', usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 } },
    ])
    await streaming(state, ctx)
    await streaming(state, ctx)
    expect(ctx.run.usage.totalTokens).toBe(15)
    expect(ctx.run.history[0]?.usage?.totalTokens).toBe(15)
    const { next, effects } = await streaming(state, ctx)
    expect(next).toEqual({
      type: 'executing',
      phase: 'start',
      queue: [{ callId: 'call_1', tool: 'click', input: { ref: 'b1' } }],
    })
    expect(effects).toEqual([
      { type: 'reflection', evaluation_previous_goal: 'Unknown', memory: 'm', next_goal: '' },
    ])
  })

  test('a retryable error cancels the stream and backs off before retrying the same prompt', async () => {
    const ctx = handBuiltContext(scriptedModel([]))
    const { state, stream } = streamingState([
      {
        type: 'error',
        error: Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNRESET' } }),
      },
    ])
    const { next, effects } = await streaming(state, ctx)
    expect(stream.cancelled).toBe(true)
    expect(next).toMatchObject({ type: 'backoff', attempt: 2, prompt })
    expect(effects[0]).toMatchObject({ type: 'error', retryable: true })
  })
})

describe('executing', () => {
  const call = { callId: 'call_1', tool: 'click', input: { ref: 'b1' } }

  test('start emits tool_call_start and resolves the tool; ready runs it and routes back to thinking', async () => {
    const browser = fakeBrowser()
    const ctx = handBuiltContext(scriptedModel([]), { browserTools: browser.tools() })
    ctx.run.history.push({ step: 1, url: '', fingerprint: '' })
    const started = await executing({ type: 'executing', phase: 'start', queue: [call] }, ctx)
    expect(started.effects).toEqual([
      { type: 'tool_call_start', callId: 'call_1', tool: 'click', input: { ref: 'b1' }, source: 'model' },
    ])
    expect(started.next).toEqual(ready(ctx, call))
    expect(browser.calls).toEqual([])
    const ran = await executing(ready(ctx, call), ctx)
    expect(ran.next).toEqual({ type: 'thinking' })
    expect(ran.effects[0]).toMatchObject({
      type: 'tool_call_result',
      ok: true,
      result: "Clicked button 'Add'.",
    })
    expect(ctx.run.history[0]).toMatchObject({ action: { tool: 'click' }, result: { ok: true } })
  })

  test('a failed result is counted', async () => {
    const ctx = handBuiltContext(scriptedModel([]), { browserTools: fakeBrowser().tools() })
    const stale = { ...call, input: { ref: 'zz99' } }
    await executing(ready(ctx, stale), ctx)
    expect(ctx.run.failedActions).toBe(1)
  })

  test('done ends the run with model_stop and its result', async () => {
    const ctx = handBuiltContext(scriptedModel([]))
    const doneCall = { callId: 'c', tool: 'done', input: { text: 'Found it.', success: true } }
    const { next } = await executing(ready(ctx, doneCall), ctx)
    expect(next).toEqual({ type: 'done', reason: 'model_stop', result: { success: true, text: 'Found it.' } })
  })

  test('a call that needs confirmation goes to confirming with a deadline', async () => {
    const ctx = handBuiltContext(scriptedModel([]), {
      browserTools: fakeBrowser().tools(),
      confirm: async () => true,
      now: () => 1_000,
    })
    const script = { callId: 'c', tool: 'execute_javascript', input: { script: '1' } }
    const { next, effects } = await executing({ type: 'executing', phase: 'start', queue: [script] }, ctx)
    expect(next).toMatchObject({ type: 'confirming', call: script, expiresAt: 2_000, confirm: ctx.confirm })
    expect(next.type === 'confirming' && next.tool).toBe(ctx.tools.get('execute_javascript'))
    expect(effects.map((e) => e.type)).toEqual(['tool_call_start', 'confirmation_required'])
  })

  test('a tool that emits events while running yields them before its result', async () => {
    const ctx = handBuiltContext(scriptedModel([]), { askUser: async () => 'blue' })
    const { buildToolRegistry } = await import('../../../src/agent/tools/registry.ts')
    ctx.tools = buildToolRegistry([], { askUser: async () => 'blue' })
    const ask = { callId: 'c', tool: 'ask_user', input: { question: 'Colour?' } }
    let result = await executing(ready(ctx, ask), ctx)
    const seen = [...result.effects]
    while (result.next.type === 'executing') {
      result = await executing(result.next, ctx)
      seen.push(...result.effects)
    }
    expect(seen.map((e) => e.type)).toEqual(['question', 'answer', 'tool_call_result'])
  })
})

describe('confirming', () => {
  const call = { callId: 'c', tool: 'execute_javascript', input: { script: '1' } }

  function confirmingState(ctx: AgentContext, confirm: ConfirmCallback, expiresAt: number): ConfirmingState {
    const { tool } = ready(ctx, call)
    return { type: 'confirming', call, tool, queue: [], reason: 'r', expiresAt, confirm }
  }

  test('approval continues to run the call', async () => {
    const ctx = handBuiltContext(scriptedModel([]), { browserTools: fakeBrowser().tools() })
    const { next, effects } = await confirming(
      confirmingState(ctx, async () => true, Date.now() + 1000),
      ctx,
    )
    expect(next).toEqual(ready(ctx, call))
    expect(effects).toEqual([{ type: 'confirmation_resolved', callId: 'c', approved: true, by: 'user' }])
  })

  test('an expired deadline is a denial by timeout, shown to the model', async () => {
    const ctx = handBuiltContext(scriptedModel([]), { browserTools: fakeBrowser().tools() })
    ctx.run.history.push({ step: 1, url: '', fingerprint: '' })
    const { next, effects } = await confirming(
      confirmingState(ctx, () => new Promise(() => {}), Date.now() - 1),
      ctx,
    )
    expect(next).toEqual({ type: 'thinking' })
    expect(effects[0]).toMatchObject({ type: 'confirmation_resolved', approved: false, by: 'timeout' })
    expect(ctx.run.history[0]?.result?.text).toMatch(/no one confirmed/)
  })
})
