import { z } from 'zod'
import { type ActionDescriptor, notExported } from '../../recording/action-descriptor.ts'
import { type AnyTool, defineTool } from '../../tool.ts'

export const dispatchAction: ActionDescriptor = {
  name: 'dispatch_agent',
  description:
    'Split the work into independent sub-tasks, each done by a sub-agent with its own browser. ' +
    'Each task must say everything the sub-agent needs, what to report, and where to start (startUrl). ' +
    'The sub-agents run in parallel unless parallel is false; their steps count against your budget. ' +
    'You get back each sub-agent’s final answer.',
  effect: null,
  docs: {
    input: '`{ tasks: [{ task, startUrl?, maxTurns?, shareSession? }], parallel? }`',
    does: 'only with `subAgents`: child runs ([api](api.md#sub-agents))',
  },
  stuck: 'changes',
  record: { element: 'none', outcome: true },
  // Its children's own steps are in their recordings.
  playwright: notExported,
}

export const dispatchToolName = dispatchAction.name

/** The input of one dispatch, for at most `max` sub-tasks. */
export function dispatchInputSchema(max: number) {
  return z.object({
    tasks: z
      .array(
        z.object({
          task: z.string().min(1).describe('What the sub-agent must do and report, complete on its own.'),
          startUrl: z.string().optional().describe('The page the sub-agent starts on.'),
          maxTurns: z.number().int().positive().optional().describe('At most this many steps.'),
          shareSession: z
            .boolean()
            .optional()
            .describe('Start with your cookies and storage (your login) instead of a fresh browser.'),
        }),
      )
      .min(1)
      .max(max),
    parallel: z.boolean().optional().describe('Run the sub-tasks at once (default) or one after another.'),
  })
}

export type DispatchInput = z.output<ReturnType<typeof dispatchInputSchema>>

/**
 * The action that starts sub-agents. It is never executed as a tool: the
 * executing state hands a checked call to the dispatching state, which runs
 * the children and forwards their events. Offered only to a run allowed to
 * dispatch (sub-agents enabled and its depth below maxDepth).
 */
export function createDispatchTool(max: number): AnyTool {
  const tool = defineTool({
    name: dispatchToolName,
    description: dispatchAction.description.replace('into independent', `into up to ${max} independent`),
    input: dispatchInputSchema(max),
    async execute() {
      // Reached only outside the state machine (a recovery running tools directly).
      return { ok: false, text: `${dispatchToolName} runs only as the model's own action.` }
    },
  })
  // Marked, not matched by name: a caller's own tool called dispatch_agent runs as a tool.
  return Object.assign(tool, { [dispatchMark]: true })
}

const dispatchMark = Symbol('dispatch_agent')

export function isDispatchTool(tool: AnyTool): boolean {
  return dispatchMark in tool
}
