import type { Page } from 'playwright-core'
import { z } from 'zod'
import { failed, ok, type ToolResult } from '../../tool.ts'
import type { BrowserToolSurface } from '../session/tool-surface.ts'
import { defineBrowserTool } from './define-action.ts'
import { dragAlong, viewportOf } from './drag.ts'

/**
 * Acting at a point of the screenshot, for what only the picture shows (a
 * canvas, a map, a chart). Points are in the screenshot's pixels, scaled back
 * to the viewport; a point off the viewport is refused. Offered only when the
 * model sees the screenshot (the registry drops them otherwise).
 */

export const visionOnlyActions = ['click_at', 'drag_at', 'hover_at'] as const

const screenPoint = z.object({
  x: z.number().nonnegative().describe('Screenshot pixels from the left'),
  y: z.number().nonnegative().describe('Screenshot pixels from the top'),
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

export function coordinateTools(session: BrowserToolSurface) {
  const click = defineBrowserTool(session, {
    name: 'click_at',
    description:
      'Click a point of the screenshot (its pixels), for what only the picture shows, e.g. a canvas. `button`, `count` as for click.',
    input: screenPoint.extend({
      button: z.enum(['left', 'right', 'middle']).optional(),
      count: z.number().int().min(1).max(3).optional(),
    }),
    effect: 'destructive',
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
    name: 'drag_at',
    description: 'Drag from one point of the screenshot to another (its pixels).',
    input: z.object({ from: screenPoint, to: screenPoint }),
    effect: 'destructive',
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
    name: 'hover_at',
    description: 'Move the mouse to a point of the screenshot (its pixels).',
    input: screenPoint,
    effect: 'readOnly',
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
