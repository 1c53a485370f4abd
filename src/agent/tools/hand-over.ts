import { z } from 'zod'
import { type ActionDescriptor, stringField } from '../../recording/action-descriptor.ts'
import { oneLine } from '../../recording/spec-text.ts'
import { type AnyTool, defineTool } from '../../tool.ts'

export const handOverToolName = 'hand_over'

export const handOverAction: ActionDescriptor = {
  name: handOverToolName,
  description:
    'A person takes over the browser for what only a person can do (a captcha, a one-time code, an approval on their phone), ' +
    'never to get around a refusal or a rule; `reason` says exactly what. You get the browser back as they left it.',
  effect: null,
  docs: {
    input: '`{ reason }`',
    does: 'only with a takeover desk: a person takes the browser (a captcha, a one-time code) and hands it back ([api](api.md#taking-over))',
  },
  stuck: 'changes',
  record: { element: 'none', outcome: true },
  // A person did this step in the run: the test stops for one too (headed, or under --debug).
  playwright: ({ input }) => [
    `// A person takes over here: ${oneLine(stringField(input, 'reason'))}`,
    'await page.pause()',
  ],
}

export const handOverInputSchema = z.object({
  reason: z.string().trim().min(1).max(500),
})

/**
 * The action that asks a person to take the browser. It is never executed as
 * a tool: the executing state hands a checked call to the handing_over state,
 * which waits for the person. Offered only to a run with a handover desk.
 */
export function createHandOverTool(maxHandovers: number): AnyTool {
  const tool = defineTool({
    name: handOverToolName,
    description: `${handOverAction.description} At most ${maxHandovers} per run.`,
    input: handOverInputSchema,
    async execute() {
      // Reached only outside the state machine (a recovery running tools directly).
      return { ok: false, text: `${handOverToolName} runs only as the model's own action.` }
    },
  })
  // Marked, not matched by name: a caller's own tool called hand_over runs as a tool.
  return Object.assign(tool, { [handOverMark]: true })
}

const handOverMark = Symbol('hand_over')

export function isHandOverTool(tool: AnyTool): boolean {
  return handOverMark in tool
}
