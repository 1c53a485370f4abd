import type { EventDraft } from '../../events/events.ts'
import type { CallOutcome } from '../../recording/schema.ts'
import { isAbortError } from '../../tool.ts'
import { asPoint } from '../replay/replay-points.ts'
import type { AgentContext, TransitionResult } from '../run/run-context.ts'
import type { PendingCall } from '../run/run-state.ts'
import { actionRegistry } from '../tools/actions.ts'

/**
 * What a recording needs of each call beyond its input: the element it acts
 * on, described durably before it runs (after it, a deleted row's button is
 * gone), and what it left on the page once it has run. Both are best effort:
 * a description that cannot be made costs the recording a detail, never the
 * call.
 */

type ToolCallStart = Extract<EventDraft, { type: 'tool_call_start' }>

/** Adds the durable target to a model call that names an element by ref (a replayed call brings its own). */
export async function recordTarget(started: TransitionResult, ctx: AgentContext): Promise<void> {
  const start = started.effects.find((effect) => effect.type === 'tool_call_start')
  const next = started.next
  const call =
    (next.type === 'executing' && next.phase === 'ready') || next.type === 'confirming'
      ? next.call
      : undefined
  const recording = ctx.browser?.recording
  if (start?.type !== 'tool_call_start' || !call || !recording) return
  const describe = recording.describeTarget
  try {
    const ref = refOf(call)
    const target = call.target || ref === undefined ? undefined : await describe(ref, ctx.signal)
    if (target) {
      call.target = target
      start.target = target
    }
    const to = dropRefOf(call)
    const dropTarget = call.dropTarget || to === undefined ? undefined : await describe(to, ctx.signal)
    if (dropTarget) {
      call.dropTarget = dropTarget
      start.dropTarget = dropTarget
    }
    await recordPoints(call, start, ctx)
  } catch (error) {
    if (isAbortError(error) || ctx.signal.aborted) throw error
    ctx.log.debug({ runId: ctx.runId, err: error }, 'could not describe the target of a call')
  }
}

/**
 * A coordinate action's points as the elements under them (found before it
 * acts), with the points' places in their boxes; a point over no element of
 * the view stays a bare point.
 */
async function recordPoints(call: PendingCall, start: ToolCallStart, ctx: AgentContext): Promise<void> {
  const describe = ctx.browser?.recording?.describePoint
  const input = call.input as Record<string, unknown> | undefined
  const points = input && actionRegistry.get(call.tool)?.record.points?.(input)
  if (!describe || call.target || !points) return
  const at = asPoint(points.start)
  const found = at ? await describe(at, ctx.signal) : undefined
  if (!found) return
  call.target = start.target = found.target
  call.offset = start.offset = found.offset
  const end = asPoint(points.end)
  const drop = end ? await describe(end, ctx.signal) : undefined
  if (!drop) return
  call.dropTarget = start.dropTarget = drop.target
  call.dropOffset = start.dropOffset = drop.offset
}

/** What the call left on the page, for `tool_call_result.outcome`. */
export async function outcomeOf(call: PendingCall, ctx: AgentContext): Promise<CallOutcome | undefined> {
  const record = actionRegistry.get(call.tool)?.record
  const recording = ctx.browser?.recording
  if (record?.outcome === false || !recording) return undefined
  const ref = refOf(call)
  const input = call.input as Record<string, unknown> | undefined
  const text = input && record?.typed?.(input)
  const typed = typeof text === 'string' ? text : undefined
  try {
    return await recording.callOutcome(
      {
        ...(ref === undefined ? {} : { ref }),
        ...(call.target ? { target: call.target } : {}),
        // A secret's value is looked for on the page by nobody: only plain text is.
        ...(typed && !typed.includes('<secret>') ? { typed } : {}),
      },
      ctx.signal,
    )
  } catch (error) {
    if (isAbortError(error) || ctx.signal.aborted) throw error
    ctx.log.debug({ runId: ctx.runId, err: error }, 'could not read what a call left on the page')
    return undefined
  }
}

/** The ref of the element a call drops onto (a `drag`'s `to`), as its descriptor says. */
function dropRefOf(call: PendingCall): string | undefined {
  const input = call.input as Record<string, unknown> | undefined
  const to = input && actionRegistry.get(call.tool)?.record.dropRef?.(input)
  return typeof to === 'string' ? to : undefined
}

function refOf(call: PendingCall): string | undefined {
  const input = call.input
  const ref = input && typeof input === 'object' && 'ref' in input ? input.ref : undefined
  return typeof ref === 'string' ? ref : undefined
}
