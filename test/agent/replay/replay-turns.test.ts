import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import type { Recording } from '../../../src/recording/schema.ts'
import { defineTool } from '../../../src/tool.ts'
import { collect, doneOf, ofType } from '../../support/run.ts'

/** A recording of `steps` calls of `tick`, a tool without a browser, so no model and no page are needed. */
function ticks(steps: number): Recording {
  return {
    version: 1,
    task: 'Tick the counter',
    steps: Array.from({ length: steps }, (_, index) => ({ step: index + 1, tool: 'tick', input: {} })),
  }
}

function counter() {
  const ticked = { count: 0 }
  const tool = defineTool({
    name: 'tick',
    description: 'Counts one.',
    input: z.object({}),
    async execute() {
      ticked.count++
      return { ok: true, text: `Ticked ${ticked.count}.` }
    },
  })
  return { tool, ticked }
}

describe('a replay counts its steps against maxTurns, like a model run', () => {
  test('a recording longer than maxTurns ends max_turns after maxTurns steps', async () => {
    const { tool, ticked } = counter()
    const events = await collect({ replay: ticks(5), maxTurns: 3, browser: null, tools: { add: [tool] } })
    expect(doneOf(events)).toMatchObject({ reason: 'max_turns', steps: 3, result: { success: false } })
    expect(ticked.count).toBe(3)
    expect(ofType(events, 'step_started').map((event) => event.step)).toEqual([1, 2, 3])
  })

  test('a recording of exactly maxTurns steps is replayed to its end', async () => {
    const { tool, ticked } = counter()
    const events = await collect({ replay: ticks(3), maxTurns: 3, browser: null, tools: { add: [tool] } })
    expect(doneOf(events)).toMatchObject({ reason: 'model_stop', steps: 3, replay: { replayed: 3 } })
    expect(ticked.count).toBe(3)
  })
})
