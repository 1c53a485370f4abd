import { describe, expect, test } from 'vitest'
import type { Usage } from '../../src/events/events.ts'
import { addUsage, zeroUsage } from '../../src/events/usage.ts'
import { agentOutput, scriptedModel } from '../support/models/scripted-model.ts'
import { collect, doneOf, ofType } from '../support/run.ts'

/** Two model calls: one unusable answer (still paid for), then done. */
function twoCalls() {
  return scriptedModel([
    { output: 'not json at all', usage: { input: 1000, output: 50, cached: 0 } },
    {
      output: agentOutput({ done: { text: 'ok', success: true } }),
      usage: { input: 1200, output: 40, cached: 1000 },
    },
  ])
}

describe('usage and cost per model call', () => {
  test('each call has its usage event; they add up to done, cached tokens and cost included', async () => {
    const events = await collect({
      task: 't',
      model: twoCalls(),
      modelName: 'openai/gpt-4.1-mini',
      browser: null,
    })
    const usages = ofType(events, 'usage')
    expect(usages.map((event) => [event.step, event.source])).toEqual([
      [1, 'step'],
      [2, 'step'],
    ])
    expect(usages[1]?.usage).toEqual({
      inputTokens: 1200,
      outputTokens: 40,
      totalTokens: 1240,
      cachedInputTokens: 1000,
    })
    // gpt-4.1-mini: 0.4 input, 0.1 cached, 1.6 output (USD per million).
    expect(usages[0]?.costUsd).toBeCloseTo((1000 * 0.4 + 50 * 1.6) / 1e6, 12)
    expect(usages[1]?.costUsd).toBeCloseTo((200 * 0.4 + 1000 * 0.1 + 40 * 1.6) / 1e6, 12)

    const done = doneOf(events)
    const sum = usages.reduce<Usage>((total, event) => addUsage(total, event.usage), { ...zeroUsage })
    expect(done.usage).toEqual(sum)
    expect(usages.at(-1)?.runUsage).toEqual(sum)
    expect(done.costUsd).toBeCloseTo((usages[0]?.costUsd ?? 0) + (usages[1]?.costUsd ?? 0), 12)
    expect(usages.at(-1)?.runCostUsd).toBe(done.costUsd)
  })

  test('a model without a known price costs null in every event, not 0', async () => {
    const events = await collect({
      task: 't',
      model: twoCalls(),
      modelName: 'ollama/qwen3:8b',
      browser: null,
    })
    expect(ofType(events, 'usage').map((event) => event.costUsd)).toEqual([null, null])
    expect(doneOf(events).costUsd).toBeNull()
    expect(doneOf(events).usage.cachedInputTokens).toBe(1000)
  })
})
