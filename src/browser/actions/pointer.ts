import { z } from 'zod'
import { failed, isAbortError, ok } from '../../tool.ts'
import { describeError } from '../../util/describe-error.ts'
import type { BrowserToolSurface } from '../session/tool-surface.ts'
import { checkClickable, checkFailure } from './click-check.ts'
import { defineBrowserTool } from './define-action.ts'
import { blockingReason, explainFailure } from './explain-failure.ts'
import { refInput } from './ref-input.ts'

export function clickTool(session: BrowserToolSurface) {
  return defineBrowserTool(session, {
    name: 'click',
    description:
      'Click an element by its ref. `double` for a double-click, `button` for right/middle clicks.',
    input: z.object({
      ref: refInput,
      button: z.enum(['left', 'right', 'middle']).optional(),
      double: z.boolean().optional(),
    }),
    effect: 'destructive',
    target: ({ ref }) => ref,
    run: async ({ button = 'left', double = false }, ctx, found) => {
      const verb = double ? 'double-click' : button === 'left' ? 'click' : `${button}-click`
      const blocked = checkFailure(await checkClickable(found.locator, ctx.signal))
      if (blocked) return failed(`Could not ${verb} ${found.label}: ${blocked}.`)
      const options = { button, timeout: session.settings.actionTimeoutMs, signal: ctx.signal }
      // A scan-marked element is clicked through the scan's own handle: a mark moved since cannot redirect it.
      const target = found.handle ?? found.locator
      try {
        if (double) await target.dblclick(options)
        else await target.click(options)
      } catch (error) {
        if (ctx.signal.aborted || isAbortError(error)) throw error
        const reason = blockingReason(describeError(error))
        return failed(`Could not ${verb} ${found.label}: ${reason ? `it ${reason}` : explainFailure(error)}.`)
      }
      const done = double ? 'Double-clicked' : button === 'left' ? 'Clicked' : `${capitalize(button)}-clicked`
      return ok(`${done} ${found.label}.`)
    },
  })
}

export function hoverTool(session: BrowserToolSurface) {
  return defineBrowserTool(session, {
    name: 'hover',
    description: 'Move the mouse over an element (opens hover menus and tooltips).',
    input: z.object({ ref: refInput }),
    effect: 'readOnly',
    target: ({ ref }) => ref,
    run: async (_input, ctx, found) => {
      await (found.handle ?? found.locator).hover({
        timeout: session.settings.actionTimeoutMs,
        signal: ctx.signal,
      })
      return ok(`Hovering over ${found.label}.`)
    },
  })
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1)
}
