import type { AnyTool } from '../../tool.ts'
import type { ResolvedOutput } from '../output/output-schema.ts'
import type { RunOptions } from '../run/run-options.ts'
import { canDispatch } from '../sub-agents/child-options.ts'
import { actionList } from './actions.ts'
import { createAskUserTool } from './ask-user.ts'
import { createDispatchTool } from './dispatch-agent.ts'
import { createDoneTool } from './done.ts'
import { createHandOverTool } from './hand-over.ts'
import { waitTool } from './wait.ts'

/**
 * The run's tools, by name: the browser's actions, then the agent's own,
 * then the caller's additions (which replace a tool of the same name), less
 * the caller's removals. `done` is always kept: without it no run can end well.
 * With an output schema (resolved), `done` takes `data`.
 */
export function buildToolRegistry(
  browserTools: AnyTool[],
  options: Pick<RunOptions, 'tools' | 'askUser' | 'handover' | 'subAgents' | 'vision'>,
  output?: ResolvedOutput,
) {
  const tools = new Map<string, AnyTool>()
  const add = (tool: AnyTool) => tools.set(tool.name, tool)
  browserTools.forEach(add)
  // Points of a screenshot mean nothing to a model that is not shown one.
  if (!options.vision) for (const action of actionList) if (action.visionOnly) tools.delete(action.name)
  add(waitTool)
  if (options.askUser) add(createAskUserTool(options.askUser))
  // A run whose model may ask for no person is not offered the tool (a person may still take over).
  if (options.handover && options.handover.maxHandovers > 0)
    add(createHandOverTool(options.handover.maxHandovers))
  if (canDispatch(options.subAgents)) add(createDispatchTool(options.subAgents.max))
  options.tools?.add?.forEach(add)
  for (const name of options.tools?.remove ?? []) {
    if (name !== 'done') tools.delete(name)
  }
  add(tools.get('done') ?? createDoneTool(output))
  return tools
}
