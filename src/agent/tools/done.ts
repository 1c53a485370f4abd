import { z } from 'zod'
import { defineTool } from '../../tool.ts'

export const doneTool = defineTool({
  name: 'done',
  description:
    'Finish the run. text: the answer or what was achieved, including any data the task asked for. ' +
    'success: false when the task could not be completed; say honestly what was done and what blocked it.',
  input: z.object({ text: z.string(), success: z.boolean() }),
  async execute(input) {
    return { ok: true, text: input.text, final: { success: input.success, text: input.text } }
  },
})
