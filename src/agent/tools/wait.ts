import { z } from 'zod'
import type { ActionDescriptor } from '../../recording/action-descriptor.ts'
import { defineTool, sleep } from '../../tool.ts'

export const waitAction: ActionDescriptor = {
  name: 'wait',
  description: 'Wait for the page to change (loading, an animation). Prefer acting.',
  effect: null,
  docs: { input: '`{ seconds }`', does: 'waits 1–10 seconds' },
  stuck: 'waits',
  // Waiting leaves nothing on the page of its own.
  record: { element: 'none', outcome: false },
  playwright: ({ input }) => [`await page.waitForTimeout(${Math.round(Number(input.seconds ?? 1) * 1000)})`],
}

export const waitTool = defineTool({
  name: waitAction.name,
  description: waitAction.description,
  input: z.object({ seconds: z.number().min(1).max(10) }),
  async execute(input, ctx) {
    const waitedMs = Math.round(input.seconds * 1000)
    await sleep(waitedMs, ctx.signal)
    return { ok: true, text: `Waited ${input.seconds} s.`, waitedMs }
  },
})
