import type { BrowserSession } from '../../browser/browser-session.ts'
import type { BoxOffset, ElementTarget, RecordedStep } from '../../recording/schema.ts'
import type { PendingCall } from '../run/run-state.ts'

/**
 * A recorded coordinate step (`click_at`, `hover_at`, `drag_at`) replayed
 * through the elements its points were on: each point is put at the same
 * place in its element's box as it is now, wherever the page moved the
 * element. A step recorded over no element keeps its raw points.
 */

type Point = { x: number; y: number }
type Found = { ok: true; ref: string } | { ok: false; reason: string }

/** The call fields of a replayed coordinate step: its points moved onto their elements, and what they were on. */
export type PointCall = {
  input: Record<string, unknown>
  extra: Pick<PendingCall, 'offset' | 'dropTarget' | 'dropOffset'>
}

/**
 * `input` with its points moved onto the elements found now (`ref`, the
 * step's target found on the page; `find` finds the drop element), or why
 * a point has no place on the page now (the step is healed).
 */
export async function replayPoints(
  step: RecordedStep,
  input: Record<string, unknown>,
  ref: string,
  drop: ElementTarget | undefined,
  browser: BrowserSession | undefined,
  find: (target: ElementTarget) => Promise<Found>,
): Promise<PointCall | string> {
  const offset = step.offset
  const recording = browser?.recording
  if (!offset || !recording) return { input, extra: {} }
  const at = await recording.pointIn(ref, offset)
  if (typeof at === 'string') return at
  if (step.tool !== 'drag_at') return { input: { ...input, x: at.x, y: at.y }, extra: { offset } }
  const from = asPoint(input.from)
  const to = asPoint(input.to)
  if (!from || !to) return { input, extra: { offset } }
  if (!drop || !step.drop) {
    // The end was over no element: the drag keeps its recorded length and direction.
    const end = { x: at.x + to.x - from.x, y: at.y + to.y - from.y }
    return { input: { ...input, from: at, to: end }, extra: { offset } }
  }
  const found = await find(drop)
  if (!found.ok) return found.reason
  const end = await recording.pointIn(found.ref, step.drop.offset)
  if (typeof end === 'string') return end
  const dropOffset: BoxOffset = step.drop.offset
  return { input: { ...input, from: at, to: end }, extra: { offset, dropTarget: drop, dropOffset } }
}

/** `{ x, y }` when the value is a point of a call's input. */
export function asPoint(value: unknown): Point | undefined {
  if (!value || typeof value !== 'object') return undefined
  const { x, y } = value as Record<string, unknown>
  return typeof x === 'number' && typeof y === 'number' ? { x, y } : undefined
}
