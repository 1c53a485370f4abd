import { z } from 'zod'
import { defineTool, failed, isAbortError, ok } from '../../tool.ts'
import type { SessionInternals } from '../session-internals.ts'
import { attempt, blockingReason, explainFailure, refInput } from './attempt.ts'
import { checkClickable, checkFailure } from './click-check.ts'

export function clickTool(session: SessionInternals) {
  return defineTool({
    name: 'click',
    description:
      'Click an element by its ref. `double` for a double-click, `button` for right/middle clicks.',
    input: z.object({
      ref: refInput,
      button: z.enum(['left', 'right', 'middle']).optional(),
      double: z.boolean().optional(),
    }),
    execute: ({ ref, button = 'left', double = false }, ctx) =>
      attempt(ctx, async () => {
        const found = await session.resolve(ref, ctx.signal)
        if (typeof found === 'string') return failed(found)
        const verb = double ? 'double-click' : button === 'left' ? 'click' : `${button}-click`
        const blocked = checkFailure(await checkClickable(found.locator, ctx.signal))
        if (blocked) return failed(`Could not ${verb} ${found.label}: ${blocked}.`)
        const options = { button, timeout: session.settings.actionTimeoutMs, signal: ctx.signal }
        try {
          if (double) await found.locator.dblclick(options)
          else await found.locator.click(options)
        } catch (error) {
          if (ctx.signal.aborted || isAbortError(error)) throw error
          const message = error instanceof Error ? error.message : String(error)
          const reason = blockingReason(message)
          return failed(
            `Could not ${verb} ${found.label}: ${reason ? `it ${reason}` : explainFailure(error)}.`,
          )
        }
        const done = double
          ? 'Double-clicked'
          : button === 'left'
            ? 'Clicked'
            : `${capitalize(button)}-clicked`
        return ok(`${done} ${found.label}.`)
      }),
  })
}

export function hoverTool(session: SessionInternals) {
  return defineTool({
    name: 'hover',
    description: 'Move the mouse over an element (opens hover menus and tooltips).',
    input: z.object({ ref: refInput }),
    execute: ({ ref }, ctx) =>
      attempt(ctx, async () => {
        const found = await session.resolve(ref, ctx.signal)
        if (typeof found === 'string') return failed(found)
        await found.locator.hover({ timeout: session.settings.actionTimeoutMs, signal: ctx.signal })
        return ok(`Hovering over ${found.label}.`)
      }),
  })
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1)
}
