import type { AgentEvent } from '../../src/events/events.ts'
import type { ScriptedResponse } from './models/scripted-model.ts'
import { agentOutput, scriptedModel } from './models/scripted-model.ts'

/** The task of the prompt a model received (the step prompt's <task> block). */
export function taskOf(prompt: string): string {
  return /<task>\n([\s\S]*?)\n<\/task>/.exec(prompt)?.[1] ?? ''
}

/**
 * One scripted model for a parent and its children, answering each call from
 * the task in its prompt: children run in parallel, so a queue would hand
 * their answers out in whatever order their calls arrive.
 */
export function routedModel(route: (task: string, prompt: string) => ScriptedResponse) {
  return scriptedModel([], { afterScript: (prompt) => route(taskOf(prompt), prompt) })
}

export function dispatch(
  tasks: { task: string; startUrl?: string; maxTurns?: number; shareSession?: boolean }[],
  parallel?: boolean,
) {
  return {
    output: agentOutput({ dispatch_agent: { tasks, ...(parallel === undefined ? {} : { parallel }) } }),
  }
}

export function finish(text: string, success = true): ScriptedResponse {
  return { output: agentOutput({ done: { text, success } }) }
}

/** Events of the child run with this childIndex, as forwarded into the parent's stream. */
export function childEvents(events: AgentEvent[], childIndex: number): AgentEvent[] {
  return events.filter((event) => event.childIndex === childIndex && event.depth === 1)
}

export function ownEvents(events: AgentEvent[]): AgentEvent[] {
  return events.filter((event) => event.parentRunId === undefined)
}

/** Whether the prompt shows a dispatch's result (the parent's step after its children ended). */
export function sawChildren(prompt: string): boolean {
  return /sub-agents finished\.|sub-agents succeeded;/.test(prompt)
}
