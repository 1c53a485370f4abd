import { z } from 'zod'
import { type ActionDescriptor, notExported } from '../../recording/action-descriptor.ts'
import { type AnyTool, defineTool } from '../../tool.ts'

export const dispatchAction: ActionDescriptor = {
  name: 'dispatch_agent',
  description:
    'Split the work into independent sub-tasks, each done by a sub-agent with its own browser (`shareSession`: with your login). ' +
    'Each `task` says all it needs and what to report. They run at once unless `parallel: false`, on your step budget; you get each answer.',
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
          task: z.string().min(1),
          startUrl: z.string().optional(),
          maxTurns: z.number().int().positive().optional(),
          shareSession: z.boolean().optional(),
        }),
      )
      .min(1)
      .max(max),
    parallel: z.boolean().optional(),
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
