import type { Page } from 'playwright-core'
import { z } from 'zod'
import type { ElementTarget, RecordedStep } from '../../recording/schema.ts'
import { clickOptions, num } from '../../recording/spec-options.ts'
import { failed, ok, type ToolResult } from '../../tool.ts'
import type { BrowserToolSurface } from '../session/tool-surface.ts'
import { type BrowserActionDescriptor, defineBrowserTool } from './define-action.ts'
import { dragAlong, viewportOf } from './drag/drag.ts'

/**
 * Acting at a point of the screenshot, for what only the picture shows (a
 * canvas, a map, a chart). Points are in the screenshot's pixels, scaled back
 * to the viewport; a point off the viewport is refused. Offered only when the
 * model sees the screenshot (the registry drops them otherwise).
 */

const screenPoint = z.object({
  x: z.number().nonnegative(),
  y: z.number().nonnegative(),
})

type ScreenPoint = z.infer<typeof screenPoint>

/** The viewport point of a screenshot point, or why there is none. */
async function toViewport(session: BrowserToolSurface, page: Page, point: ScreenPoint) {
  const scale = session.pictureScale()
  const viewport = await viewportOf(page)
  const x = point.x / scale
  const y = point.y / scale
  if (x >= viewport.x || y >= viewport.y)
    return `(${point.x}, ${point.y}) is outside the screenshot (${Math.round(viewport.x * scale)}×${Math.round(viewport.y * scale)}).`
  return { x, y }
}

/** What is at a viewport point, named as the results name elements: `canvas#board`, `button "Save"`. */
async function elementAt(page: Page, x: number, y: number): Promise<string> {
  return page
    .evaluate(
      ([px, py]) => {
        const hit = document.elementFromPoint(px ?? 0, py ?? 0)
        if (!hit) return 'nothing'
        const id = hit.id ? `#${hit.id}` : ''
        const label = (hit.getAttribute('aria-label') || hit.textContent || '').replace(/\s+/g, ' ').trim()
        return `${hit.tagName.toLowerCase()}${id}${label ? ` "${label.slice(0, 40)}"` : ''}`
      },
      [x, y],
    )
    .catch(() => 'an element')
}

export const clickAtAction: BrowserActionDescriptor = {
  name: 'click_at',
  description:
    'Click a point of the screenshot (its pixels from the top left), for what only the picture shows (a canvas). `button`, `count` as for click.',
  effect: 'destructive',
  docs: {
    input: '`{ x, y, button?, count? }`',
    does: 'with vision only: clicks a point of the screenshot (its pixels, scaled back to the viewport; a point outside is refused)',
  },
  visionOnly: true,
  stuck: 'changes',
  record: { element: 'none', points: (input) => ({ start: input }), outcome: true },
  playwright: (step, { target }) => pointLines('click', step, target),
}

export const dragAtAction: BrowserActionDescriptor = {
  name: 'drag_at',
  description: 'Drag between two points of the screenshot (its pixels).',
  effect: 'destructive',
  docs: {
    input: '`{ from: { x, y }, to: { x, y } }`',
    does: 'with vision only: drags from one point of the screenshot to another',
  },
  visionOnly: true,
  stuck: 'changes',
  record: { element: 'none', points: (input) => ({ start: input.from, end: input.to }), outcome: true },
  playwright: (step, { target, locate }) => pointLines('drag', step, target, locate),
}

export const hoverAtAction: BrowserActionDescriptor = {
  name: 'hover_at',
  description: 'Move the mouse to a point of the screenshot (its pixels).',
  effect: 'readOnly',
  docs: { input: '`{ x, y }`', does: 'with vision only: moves the mouse to a point of the screenshot' },
  visionOnly: true,
  stuck: 'changes',
  record: { element: 'none', points: (input) => ({ start: input }), outcome: true },
  playwright: (step, { target }) => pointLines('hover', step, target),
}

export function coordinateTools(session: BrowserToolSurface) {
  const click = defineBrowserTool(session, {
    action: clickAtAction,
    input: screenPoint.extend({
      button: z.enum(['left', 'right', 'middle']).optional(),
      count: z.number().int().min(1).max(3).optional(),
    }),
    run: async ({ button = 'left', count = 1, ...point }, _ctx): Promise<ToolResult> => {
      const page = await session.activePage()
      const at = await toViewport(session, page, point)
      if (typeof at === 'string') return failed(`Could not click: ${at}`)
      const what = await elementAt(page, at.x, at.y)
      await page.mouse.click(at.x, at.y, { button, clickCount: count })
      return ok(`Clicked (${point.x}, ${point.y}) on ${what}.`)
    },
  })
  const drag = defineBrowserTool(session, {
    action: dragAtAction,
    input: z.object({ from: screenPoint, to: screenPoint }),
    run: async ({ from, to }, ctx): Promise<ToolResult> => {
      const page = await session.activePage()
      const start = await toViewport(session, page, from)
      if (typeof start === 'string') return failed(`Could not drag: ${start}`)
      const end = await toViewport(session, page, to)
      if (typeof end === 'string') return failed(`Could not drag: ${end}`)
      const what = await elementAt(page, start.x, start.y)
      await dragAlong(page, start, end, ctx.signal)
      return ok(`Dragged ${what} from (${from.x}, ${from.y}) to (${to.x}, ${to.y}).`)
    },
  })
  const hover = defineBrowserTool(session, {
    action: hoverAtAction,
    input: screenPoint,
    run: async (point): Promise<ToolResult> => {
      const page = await session.activePage()
      const at = await toViewport(session, page, point)
      if (typeof at === 'string') return failed(`Could not hover: ${at}`)
      await page.mouse.move(at.x, at.y)
      return ok(`Hovering at (${point.x}, ${point.y}) over ${await elementAt(page, at.x, at.y)}.`)
    },
  })
  return [click, drag, hover]
}

/**
 * The Playwright lines of a coordinate step. One recorded on an element acts
 * at the same place in the element's box (`position`, relative to its
 * locator), wherever the element is now; one recorded over no element acts
 * at its raw point: screenshot pixels, the same as the viewport's while the
 * screenshot was not scaled down (viewports up to 1280 px wide).
 */
function pointLines(
  kind: 'click' | 'hover' | 'drag',
  step: RecordedStep,
  target: string | undefined,
  locate?: (element: ElementTarget) => string,
): string[] {
  const input = step.input
  const offset = step.offset
  if (target && offset) {
    const box = [
      `const box = await ${target}.boundingBox()`,
      "if (!box) throw new Error('The element the point was on is not visible.')",
    ]
    const position = `{ x: box.width * ${offset.x}, y: box.height * ${offset.y} }`
    if (kind === 'click') {
      const options = clickOptions(input).replace(/^\{ (.*) \}$/, ', $1')
      return [...box, `await ${target}.click({ position: ${position}${options} })`]
    }
    if (kind === 'hover') return [...box, `await ${target}.hover({ position: ${position} })`]
    const drop = step.drop
    if (drop && locate)
      return [
        ...box,
        `const drop = ${locate(drop.target)}`,
        'const dropBox = await drop.boundingBox()',
        "if (!dropBox) throw new Error('The element the drag ended on is not visible.')",
        `await ${target}.dragTo(drop, { sourcePosition: ${position}, targetPosition: { x: dropBox.width * ${drop.offset.x}, y: dropBox.height * ${drop.offset.y} }, steps: 20 })`,
      ]
    // The end was over no element: the drag keeps its recorded length and direction.
    const from = pointOf(input.from)
    const to = pointOf(input.to)
    return [
      `await ${target}.scrollIntoViewIfNeeded()`,
      ...box,
      `const x = box.x + box.width * ${offset.x}`,
      `const y = box.y + box.height * ${offset.y}`,
      'await page.mouse.move(x, y)',
      'await page.mouse.down()',
      `await page.mouse.move(x + ${to.x - from.x}, y + ${to.y - from.y}, { steps: 20 })`,
      'await page.mouse.up()',
    ]
  }
  if (kind === 'click')
    return [
      `await page.mouse.click(${num(input.x)}, ${num(input.y)}${clickOptions(input) ? `, ${clickOptions(input)}` : ''})`,
    ]
  if (kind === 'hover') return [`await page.mouse.move(${num(input.x)}, ${num(input.y)})`]
  const from = pointOf(input.from)
  const to = pointOf(input.to)
  return [
    `await page.mouse.move(${from.x}, ${from.y})`,
    'await page.mouse.down()',
    `await page.mouse.move(${to.x}, ${to.y}, { steps: 20 })`,
    'await page.mouse.up()',
  ]
}

function pointOf(value: unknown): { x: number; y: number } {
  const point = (value ?? {}) as Record<string, unknown>
  return { x: num(point.x), y: num(point.y) }
}
