import { z } from 'zod'
import { defineTool, sleep } from '../../tool.ts'

export const waitTool = defineTool({
  name: 'wait',
  description:
    'Wait for the page to change (a loading list, an animation). Waiting costs time; prefer acting.',
  input: z.object({ seconds: z.number().min(1).max(10) }),
  async execute(input, ctx) {
    const waitedMs = Math.round(input.seconds * 1000)
    await sleep(waitedMs, ctx.signal)
    return { ok: true, text: `Waited ${input.seconds} s.`, waitedMs }
  },
})
