import { addCost, addUsage } from '../../events/usage.ts'
import { AbortError } from '../../tool.ts'
import type { AgentContext, TransitionResult } from '../run/run-context.ts'
import type { AwaitingChildrenState, DispatchingState, StartDispatchState } from '../run/run-state.ts'
import { finishCall } from '../steps/finish-call.ts'
import { carveChildBudget } from '../sub-agents/budget.ts'
import { startChildren } from '../sub-agents/child-group.ts'
import { reportChildren } from '../sub-agents/child-report.ts'
import { dispatchInputSchema } from '../tools/dispatch-agent.ts'

/**
 * Runs the children of a `dispatch_agent` call: carves their budgets and
 * starts them (phase start), then forwards what they emit, as it arrives,
 * until the last one ends (phase awaiting-children). Their ends become one
 * tool result, and their turns and tokens count as the parent's.
 */
export async function dispatching(state: DispatchingState, ctx: AgentContext): Promise<TransitionResult> {
  switch (state.phase) {
    case 'start':
      return startDispatch(state, ctx)
    case 'awaiting-children':
      return awaitChildren(state, ctx)
    default: {
      const unknownPhase: never = state
      throw new Error(`Unknown dispatching phase ${JSON.stringify(unknownPhase)}`)
    }
  }
}

function startDispatch(state: StartDispatchState, ctx: AgentContext): TransitionResult {
  const { call, queue } = state
  const runner = ctx.subAgents
  if (!runner)
    return finishCall({
      ctx,
      call,
      queue,
      result: { ok: false, text: 'This run may not dispatch sub-agents.' },
    })
  const parsed = dispatchInputSchema(runner.max).safeParse(call.input)
  if (!parsed.success) {
    const text = `Not run: the tasks are invalid (at most ${runner.max}, each with a task): ${parsed.error.issues[0]?.message ?? ''}`
    return finishCall({ ctx, call, queue, result: { ok: false, text } })
  }
  const { tasks, parallel = true } = parsed.data
  if (tasks.some((task) => task.shareSession) && !ctx.browser?.storageState) {
    const text = 'Not run: this run has no browser session to share; dispatch without shareSession.'
    return finishCall({ ctx, call, queue, result: { ok: false, text } })
  }
  const budget = carveChildBudget(ctx, tasks.length)
  if (!budget.ok)
    return finishCall({ ctx, call, queue, result: { ok: false, text: `Not run: ${budget.reason}` } })
  const specs = tasks.map((task, index) => ({
    index,
    task: task.task,
    ...(task.startUrl === undefined ? {} : { startUrl: task.startUrl }),
    // A task may ask for fewer turns than its share, never more.
    maxTurns: Math.min(task.maxTurns ?? budget.maxTurns, budget.maxTurns),
    ...(budget.maxSessionTokens === undefined ? {} : { maxSessionTokens: budget.maxSessionTokens }),
    ...(budget.maxCostUsd === undefined ? {} : { maxCostUsd: budget.maxCostUsd }),
    ...(task.shareSession ? { shareSession: true } : {}),
  }))
  const children = startChildren(specs, {
    parentRunId: ctx.runId,
    runner,
    parallel,
    signal: ctx.signal,
    now: ctx.now,
  })
  // Watched on abort like a running tool: the run waits (bounded) for its children to end and
  // close their browsers, then yields what they said on the way out.
  ctx.run.inFlight = {
    label: `The ${specs.length} sub-agents of ${call.tool}`,
    settled: children.ended,
    leftovers: () => children.take(),
  }
  return { next: { type: 'dispatching', phase: 'awaiting-children', call, queue, children }, effects: [] }
}

async function awaitChildren(state: AwaitingChildrenState, ctx: AgentContext): Promise<TransitionResult> {
  const { call, queue, children } = state
  await children.waitForEvent()
  // After an abort the loop has moved on: what the children say while ending is its leftovers now.
  if (ctx.signal.aborted) throw new AbortError()
  const effects = children.take()
  if (!children.isEnded) return { next: state, effects }
  const outcomes = await children.ended
  ctx.run.inFlight = undefined
  // The parent's maxTurns, maxSessionTokens and maxCostUsd count what its children spent.
  const spent = outcomes.reduce(
    (run, { summary }) => ({
      usage: addUsage(run.usage, summary.usage),
      costUsd: addCost(run.costUsd, summary.costUsd),
      step: run.step + summary.steps,
    }),
    { usage: ctx.run.usage, costUsd: ctx.run.costUsd, step: ctx.run.step },
  )
  const finished = finishCall({
    // The call is finished in the run as its children left it (its next step counts theirs).
    ctx: { ...ctx, run: { ...ctx.run, ...spent } },
    call,
    queue,
    result: { ok: true, text: reportChildren(outcomes) },
    durationMs: ctx.now() - children.startedAt,
    effects,
  })
  return { ...finished, update: { run: { ...spent, ...finished.update?.run } } }
}
