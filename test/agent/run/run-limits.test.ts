import { describe, expect, test } from 'vitest'
import { createHandoverDesk } from '../../../src/agent/handover/handover-desk.ts'
import { runAgent } from '../../../src/agent/loop.ts'
import { RunLimitError } from '../../../src/agent/run/run-limits.ts'
import { fakeBrowser } from '../../support/fake-browser.ts'
import { agentOutput, scriptedModel } from '../../support/models/scripted-model.ts'
import { collect, doneOf, ofType } from '../../support/run.ts'
import { dispatch, finish, routedModel } from '../../support/sub-agents.ts'

// The run's limits as the caller meets them: the dollar budget (from the model's price), the refusal of
// a cap that cannot be counted, and the wall-clock bound, which ends a run whatever it is waiting for.

const click = agentOutput({ click: { ref: 'b1' } }, 'clicked')
/** Priced in the shipped table: $0.4 per million input tokens, $1.6 per million output tokens. */
const priced = 'openai/gpt-4.1-mini'
/** 500k input and 100k output tokens of the priced model: $0.36. */
const costly = { input: 500_000, output: 100_000 }

describe('maxCostUsd', () => {
  test('ends a priced run with budget_exceeded once its cost reaches the cap', async () => {
    const model = scriptedModel([{ output: click, usage: costly }, { output: click }])
    const events = await collect({
      task: 't',
      model,
      modelName: priced,
      browser: fakeBrowser(),
      maxCostUsd: 0.3,
    })
    const done = doneOf(events)
    expect(done).toMatchObject({ reason: 'budget_exceeded', steps: 1, result: { success: false } })
    expect(done.result.text).toContain('over its budget of $0.3')
    expect(done.costUsd).toBeCloseTo(0.36, 5)
  })

  test('a run with a dollar cap and a model without a price is refused before it starts', async () => {
    const run = runAgent({ task: 't', model: scriptedModel([]), modelName: 'local/llama', maxCostUsd: 1 })
    await expect(run.next()).rejects.toThrow(RunLimitError)
    await expect(
      runAgent({ task: 't', model: scriptedModel([]), modelName: 'local/llama', maxCostUsd: 1 }).next(),
    ).rejects.toThrow(/maxCostUsd needs a priced model, and local\/llama has no price/)
  })

  test("a child's cost counts against its parent's cap", async () => {
    // The parent's own calls cost little; its child's one call costs $0.36.
    const model = routedModel((task) =>
      task === 'child'
        ? { ...finish('found'), usage: costly }
        : task === 'parent'
          ? parentTurn()
          : finish('?'),
    )
    let turns = 0
    const parentTurn = () => (turns++ === 0 ? dispatch([{ task: 'child' }]) : finish('the parent is done'))
    const events = await collect({
      task: 'parent',
      model,
      modelName: priced,
      browser: null,
      subAgents: { max: 2 },
      maxCostUsd: 0.3,
    })
    const done = doneOf(events.filter((event) => event.parentRunId === undefined))
    // Alone, the parent spent nothing near its cap: its child's $0.36 ends it before it can answer.
    expect(done.result.text).toContain('over its budget of $0.3')
    expect(done).toMatchObject({ reason: 'budget_exceeded', result: { success: false } })
    expect(done.costUsd).toBeGreaterThan(0.36)
  })
})

describe('maxDurationMs', () => {
  test('ends a run waiting on a model stream that never finishes, with words that say time', async () => {
    const model = scriptedModel([{ output: click }, { hang: true }])
    const events = await collect({ task: 't', model, browser: fakeBrowser(), maxDurationMs: 300 })
    const done = doneOf(events)
    expect(done.reason).toBe('budget_exceeded')
    expect(done.result.text).toContain('time limit of 300 ms (maxDurationMs)')
  })

  test('ends a run waiting for a person who never hands back', async () => {
    const desk = createHandoverDesk()
    const model = scriptedModel([{ output: agentOutput({ hand_over: { reason: 'Solve the captcha' } }) }])
    const events = await collect({
      task: 't',
      model,
      browser: fakeBrowser(),
      handover: desk,
      maxDurationMs: 300,
    })
    expect(ofType(events, 'takeover_started')).toHaveLength(1)
    expect(doneOf(events)).toMatchObject({ reason: 'budget_exceeded', result: { success: false } })
  })

  test('ends a run waiting for a confirmation nobody gives', async () => {
    const model = scriptedModel([{ output: agentOutput({ click: { ref: 'b1' } }) }])
    const events = await collect({
      task: 't',
      model,
      browser: fakeBrowser(),
      policy: [{ tool: 'click', decision: 'confirm' }],
      confirm: (_request, signal) =>
        new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
      maxDurationMs: 300,
    })
    expect(ofType(events, 'confirmation_required')).toHaveLength(1)
    expect(doneOf(events).reason).toBe('budget_exceeded')
  })

  test('a run that ends first leaves no timer running', async () => {
    const model = scriptedModel([{ output: agentOutput({ done: { text: 'ok', success: true } }) }])
    const before = process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length
    const events = await collect({ task: 't', model, browser: null, maxDurationMs: 60_000 })
    expect(doneOf(events).reason).toBe('model_stop')
    const after = process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length
    expect(after).toBeLessThanOrEqual(before)
  })
})

describe('a limit nearing its end', () => {
  // Each of tokens, dollars and time warns the model once, when 80% of it is used, in the limit's own words.
  const warned = (events: Awaited<ReturnType<typeof collect>>, code: string) =>
    ofType(events, 'warning').filter((warning) => warning.code === code)

  test('at 80% of its tokens the model reads, once, how many are left', async () => {
    const model = scriptedModel([
      { output: click, usage: { input: 800, output: 100 } },
      { output: click, usage: { input: 50, output: 10 } },
      finish('found'),
    ])
    const events = await collect({ task: 't', model, browser: fakeBrowser(), maxSessionTokens: 1100 })
    expect(doneOf(events).reason).toBe('model_stop')
    expect(warned(events, 'tokens_remaining').map((warning) => warning.message)).toEqual([
      expect.stringContaining('This run has used 900 of its 1100 tokens.'),
    ])
    const prompts = model.prompts()
    expect(prompts[1]).toContain('900 of its 1100 tokens')
    expect(prompts[2]).not.toContain('of its 1100 tokens')
  })

  test('at 80% of its dollars', async () => {
    const model = scriptedModel([{ output: click, usage: costly }, { output: click }, finish('found')])
    const events = await collect({
      task: 't',
      model,
      modelName: priced,
      browser: fakeBrowser(),
      maxCostUsd: 0.4,
    })
    expect(doneOf(events).reason).toBe('model_stop')
    expect(warned(events, 'cost_remaining').map((warning) => warning.message)).toEqual([
      expect.stringContaining('This run has cost $0.3600 of its $0.4 budget.'),
    ])
    expect(model.prompts()[1]).toContain('$0.3600 of its $0.4 budget')
  })

  test('at 80% of its time, and never for a limit the run does not have', async () => {
    let clock = 1_000_000
    const model = scriptedModel([
      () => {
        clock += 8_500
        return { output: click }
      },
      { output: click },
      finish('found'),
    ])
    const events = await collect({
      task: 't',
      model,
      browser: fakeBrowser(),
      maxDurationMs: 10_000,
      now: () => clock,
    })
    expect(doneOf(events).reason).toBe('model_stop')
    expect(warned(events, 'time_remaining').map((warning) => warning.message)).toEqual([
      expect.stringContaining('This run has taken 8.5 s of its 10 s.'),
    ])
    expect(warned(events, 'tokens_remaining')).toEqual([])
    expect(warned(events, 'cost_remaining')).toEqual([])
  })
})
