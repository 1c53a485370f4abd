import type { ElementHandle, Page } from 'playwright-core'
import { z } from 'zod'
import { ElementTargetSchema } from '../../../events/call-schemas.ts'
import { onTarget } from '../../../recording/action-descriptor.ts'
import type { ElementTarget } from '../../../recording/schema.ts'
import { oneLine } from '../../../recording/spec-text.ts'
import { failed, ok } from '../../../tool.ts'
import type { ActionTarget, BrowserToolSurface, ResolvedElement } from '../../session/tool-surface.ts'
import { evaluateElement } from '../../view/first-element.ts'
import { type BrowserActionDescriptor, defineBrowserTool } from '../define-action.ts'
import { refInput } from '../ref-input.ts'
import { animationsEnded, type Box, itemAt, ordinal, type Point, pastMiddle, placesOf } from './drag-place.ts'

/**
 * Drags an element onto another or by an offset, with the mouse a person
 * would use: press on its centre, move in small steps, release. Playwright
 * turns such a gesture on a `draggable` element into Chromium's own HTML5
 * drag (dragstart, dragover, drop with a DataTransfer), and pointer-driven
 * widgets (sortable lists, kanban boards, sliders, resizers, canvases) see
 * the pointer and mouse events they listen to.
 */

export const pointInput = z.object({ x: z.number(), y: z.number() })

export const dragAction: BrowserActionDescriptor = {
  name: 'drag',
  description:
    'Drag an element onto another (`to`: a ref; onto a list item, it takes its place) or by pixels (`by`: {x, y}).',
  effect: 'destructive',
  docs: {
    input: '`{ ref, to?: ref, by?: { x, y } }`',
    does: "drags the element onto another (`to`) or by an offset in CSS pixels (`by`), exactly one of them; HTML5 drag and drop and pointer-driven widgets (sortable lists, boards, sliders, resizers). Onto an item of its own list it moves a little past that item's middle, checks that it took the item's place (one more try if not) and says where it is: `it is now 7th of 10`",
  },
  stuck: 'changes',
  record: { element: 'required', dropRef: (input) => input.to, outcome: true },
  playwright: onTarget((target, { input }, { locate }) => dragLines(target, input, locate)),
}

export function dragTool(session: BrowserToolSurface) {
  return defineBrowserTool(session, {
    action: dragAction,
    input: z
      .object({ ref: refInput, to: refInput.optional(), by: pointInput.optional() })
      .refine((input) => (input.to === undefined) !== (input.by === undefined), {
        message: 'Give exactly one of `to` (a ref) and `by` ({x, y}).',
      }),
    target: ({ ref }) => ref,
    run: async ({ to, by }, ctx, found) => {
      const source = found.handle ?? found.locator
      let destination: ResolvedElement | undefined
      if (to !== undefined) {
        const resolved = await session.resolve(to, ctx.signal)
        if (typeof resolved === 'string') return failed(resolved)
        destination = resolved
      }
      try {
        const timeout = session.settings.actionTimeoutMs
        await source.scrollIntoViewIfNeeded({ timeout })
        const from = await centreOf(source)
        if (!from) return failed(`Could not drag ${found.label}: it is not visible.`)
        let end: Point | undefined
        if (destination) {
          const box = await boxOf(destination.handle ?? destination.locator)
          if (!box) return failed(`Could not drag onto ${destination.label}: it is not visible.`)
          end = pastMiddle(from, box)
        } else if (by) end = { x: from.x + by.x, y: from.y + by.y }
        if (!end) return failed('Give exactly one of `to` (a ref) and `by` ({x, y}).')
        const viewport = await viewportOf(found.page)
        if (!inside(end, viewport))
          return failed(
            `Could not drag ${found.label}: the drop point (${Math.round(end.x)}, ${Math.round(end.y)}) is off screen (viewport ${viewport.x}×${viewport.y}); scroll first or drag by less.`,
          )
        // Onto an item of its own list: the item's place is where it should land.
        const wanted = destination
          ? (await placesOf(found.element, destination.element, ctx.signal))?.other
          : undefined
        await dragAlong(found.page, from, end, ctx.signal, () => animationsEnded(found.element, ctx.signal))
        if (destination && wanted !== undefined) {
          const landed = await landAt(found, wanted, ctx.signal)
          return ok(`Dragged ${found.label} onto ${destination.label}: ${landed}.`)
        }
        const where = await whereNow(found.element, ctx.signal)
        const onto = destination ? ` onto ${destination.label}` : ` by (${by?.x}, ${by?.y})`
        return ok(`Dragged ${found.label}${onto}; ${where}.`)
      } finally {
        void destination?.element.dispose().catch(() => {})
      }
    },
  })
}

/**
 * Once the drop is over, where the item came to rest in its list; when not
 * at the wanted place, one more drag onto the item now there, as a person
 * corrects a drop that slipped. Says where it is, and that it missed if so.
 */
async function landAt(found: ResolvedElement, wanted: number, signal: AbortSignal): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    await animationsEnded(found.element, signal)
    const place = (await placesOf(found.element, undefined, signal))?.own
    if (!place) return 'the page re-rendered it: the next view shows where it is'
    const said = `it is now ${ordinal(place.index + 1)} of ${place.count}`
    if (place.index === wanted) return said
    const slot = attempt < 1 ? await itemAt(found.element, wanted) : undefined
    const from = slot ? await centreOf(found.element) : undefined
    const box = slot ? await boxOf(slot) : undefined
    void slot?.dispose().catch(() => {})
    if (!from || !box)
      return `${said}, not ${ordinal(wanted + 1)} where it was dropped; the next view shows the order`
    await dragAlong(found.page, from, pastMiddle(from, box), signal, () =>
      animationsEnded(found.element, signal),
    )
  }
}

/**
 * Press, a first small move (past the drag thresholds pages use), then steps of ~10 px, then release.
 * With `animating` (whether the page was still sliding items into place): while it was, the pointer
 * waits, then creeps a pixel on in the direction of travel, since a sortable library ignores the item it
 * is animating (SortableJS) and reorders on a move after its last hit test.
 */
export async function dragAlong(
  page: Page,
  from: Point,
  to: Point,
  signal: AbortSignal,
  animating?: () => Promise<boolean>,
): Promise<void> {
  const mouse = page.mouse
  await mouse.move(from.x, from.y)
  await mouse.down()
  try {
    const distance = Math.hypot(to.x - from.x, to.y - from.y)
    const nudge = distance > 0 ? Math.min(6, distance) / distance : 0
    await mouse.move(from.x + (to.x - from.x) * nudge, from.y + (to.y - from.y) * nudge, { steps: 2 })
    if (signal.aborted) return
    await mouse.move(to.x, to.y, { steps: Math.max(5, Math.min(40, Math.round(distance / 10))) })
    const unit =
      distance > 0 ? { x: (to.x - from.x) / distance, y: (to.y - from.y) / distance } : { x: 0, y: 0 }
    let at = to
    for (let round = 0; round < 4 && animating && (await animating()); round++) {
      if (signal.aborted) return
      at = { x: at.x + unit.x, y: at.y + unit.y }
      await mouse.move(at.x, at.y)
    }
    // One more move on the spot: sortable widgets reorder on the move that follows their last hit test.
    await mouse.move(at.x, at.y)
  } finally {
    await mouse.up()
  }
}

async function boxOf(target: ActionTarget): Promise<Box | undefined> {
  const box = await target.boundingBox()
  return box && box.width > 0 && box.height > 0 ? box : undefined
}

async function centreOf(target: ActionTarget): Promise<Point | undefined> {
  const box = await boxOf(target)
  return box && { x: box.x + box.width / 2, y: box.y + box.height / 2 }
}

/** The viewport in CSS pixels, where mouse coordinates live. */
export function viewportOf(page: Page): Promise<Point> {
  return page.evaluate(() => ({ x: innerWidth, y: innerHeight }))
}

function inside(point: Point, viewport: Point): boolean {
  return point.x >= 0 && point.y >= 0 && point.x < viewport.x && point.y < viewport.y
}

/** Where the dragged element is now: its place among its siblings, its box, a slider's value. */
async function whereNow(source: ElementHandle, signal: AbortSignal): Promise<string> {
  const describe = (element: Element): string | undefined => {
    if (!element.isConnected) return undefined
    const box = element.getBoundingClientRect()
    const parent = element.parentElement
    const siblings = parent
      ? Array.from(parent.children).filter((child) => child.tagName === element.tagName)
      : []
    const place =
      siblings.length > 1 ? `item ${siblings.indexOf(element) + 1} of ${siblings.length} in its list, ` : ''
    const value =
      element instanceof HTMLInputElement
        ? `, value ${element.value}`
        : element.getAttribute('aria-valuenow') !== null
          ? `, value ${element.getAttribute('aria-valuenow')}`
          : ''
    return `it is now ${place}at (${Math.round(box.x)}, ${Math.round(box.y)})${value}`
  }
  const described = await evaluateElement(source, describe, undefined, signal).catch(() => undefined)
  return described ?? 'the page re-rendered it: the next view shows where it is'
}

/**
 * A drag as the action does it: press on the element's centre, move in
 * steps to a little past the drop element's middle or by the offset, release
 * (without the action's look at where a list item landed, and its second try).
 */
function dragLines(
  target: string,
  input: Record<string, unknown>,
  locate: (element: ElementTarget) => string,
): string[] {
  const by = input.by as { x?: unknown; y?: unknown } | undefined
  const onto = ElementTargetSchema.safeParse(input.to)
  let end: string[]
  if (onto.success)
    end = [
      `const drop = await ${locate(onto.data)}.boundingBox()`,
      "if (!drop) throw new Error('The drop element is not visible.')",
      'const dropX = drop.x + drop.width / 2',
      'const dropY = drop.y + drop.height / 2',
      '// A quarter past its middle along each way the drag travels: where a sortable list opens the gap.',
      'const toX = dropX + (Math.abs(dropX - x) > drop.width / 4 ? (Math.sign(dropX - x) * drop.width) / 4 : 0)',
      'const toY = dropY + (Math.abs(dropY - y) > drop.height / 4 ? (Math.sign(dropY - y) * drop.height) / 4 : 0)',
      'await page.mouse.move(toX, toY, { steps: 20 })',
      'await page.mouse.move(toX, toY)',
    ]
  else if (typeof by?.x === 'number' && typeof by.y === 'number')
    end = [`await page.mouse.move(x + ${by.x}, y + ${by.y}, { steps: 20 })`]
  else return [`// drag is not exported: ${oneLine(JSON.stringify(input))}`]
  return [
    `const box = await ${target}.boundingBox()`,
    "if (!box) throw new Error('The dragged element is not visible.')",
    'const x = box.x + box.width / 2',
    'const y = box.y + box.height / 2',
    'await page.mouse.move(x, y)',
    'await page.mouse.down()',
    ...end,
    'await page.mouse.up()',
  ]
}
