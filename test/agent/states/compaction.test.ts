import { MockLanguageModelV4 } from 'ai/test'
import { describe, expect, test } from 'vitest'
import { fakeBrowser } from '../../support/fake-browser.ts'
import { agentOutput, scriptedModel } from '../../support/models/scripted-model.ts'
import { collect, doneOf, ofType } from '../../support/run.ts'

const summary = {
  task: 'Add items',
  progress: 'Clicked Add several times.',
  keyData: 'Counter at 5.',
  failedAttempts: 'None.',
  nextSteps: 'Finish.',
}

function summaryModel(fail = false) {
  return new MockLanguageModelV4({
    doGenerate: async () => {
      if (fail) throw new Error('summary model is down')
      return {
        content: [{ type: 'text', text: JSON.stringify(summary) }],
        finishReason: { unified: 'stop', raw: undefined },
        usage: {
          inputTokens: { total: 50, noCache: 50, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: 30, text: 30, reasoning: undefined },
        },
        warnings: [],
      }
    },
  })
}

const longMemory = 'remember '.repeat(60)
const steps = (n: number) => [
  ...Array.from({ length: n }, (_, i) => ({
    output: agentOutput({ click: { ref: 'b1' } }, `${longMemory} step ${i + 1}`),
  })),
  { output: agentOutput({ done: { text: 'ok', success: true } }) },
]

describe('compaction', () => {
  test('summarizes older steps when the prompt passes the threshold; recent steps stay verbatim', async () => {
    const model = scriptedModel(steps(5))
    const compactor = summaryModel()
    const events = await collect({
      task: 'Add items',
      model,
      browser: fakeBrowser(),
      compaction: { thresholdTokens: 400, keepRecentSteps: 2, model: compactor },
    })
    const starts = ofType(events, 'compaction_start')
    const ends = ofType(events, 'compaction_end')
    expect(starts.length).toBeGreaterThan(0)
    expect(starts[0]?.threshold).toBe(400)
    expect(ends[0]?.ok).toBe(true)
    expect(ends[0]!.tokensAfter).toBeLessThan(ends[0]!.tokensBefore)
    const lastPrompt = model.prompts().at(-1)!
    expect(lastPrompt).toMatch(/summary_of_steps_1_to_\d/)
    expect(lastPrompt).toContain('Counter at 5.')
    expect(lastPrompt).not.toContain('step 1\\n')
    expect(lastPrompt).toContain('step 5')
    // The summary call's tokens count toward the run's usage.
    expect(doneOf(events).usage.inputTokens).toBeGreaterThan(600)
    expect(doneOf(events).reason).toBe('model_stop')
  })

  test('a circuit breaker stops retrying after repeated failures; the run goes on', async () => {
    const events = await collect({
      task: 'Add items',
      model: scriptedModel(steps(6)),
      browser: fakeBrowser(),
      compaction: { thresholdTokens: 300, keepRecentSteps: 1, maxFailures: 2, model: summaryModel(true) },
    })
    expect(ofType(events, 'compaction_start')).toHaveLength(2)
    expect(ofType(events, 'compaction_end').map((e) => e.ok)).toEqual([false, false])
    const codes = ofType(events, 'warning').map((w) => w.code)
    expect(codes).toEqual(['compaction_failed', 'compaction_disabled'])
    expect(doneOf(events).reason).toBe('model_stop')
  })
})
