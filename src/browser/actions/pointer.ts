import { z } from 'zod'
import { failed, isAbortError, ok } from '../../tool.ts'
import { describeError } from '../../util/describe-error.ts'
import type { BrowserToolSurface } from '../session/tool-surface.ts'
import { checkClickable, checkFailure } from './click-check.ts'
import { defineBrowserTool } from './define-action.ts'
import { blockingReason, explainFailure } from './explain-failure.ts'
import { refInput } from './ref-input.ts'

const clickCounts = ['', '', 'Double', 'Triple'] as const

export function clickTool(session: BrowserToolSurface) {
  return defineBrowserTool(session, {
    name: 'click',
    description:
      'Click an element by its ref. `count` 2 or 3 for double/triple clicks, `button` for right/middle clicks (a context menu shows in the next view), `modifiers` to hold keys.',
    input: z.object({
      ref: refInput,
      button: z.enum(['left', 'right', 'middle']).optional(),
      count: z.number().int().min(1).max(3).optional(),
      modifiers: z
        .array(z.enum(['Alt', 'Control', 'Meta', 'Shift']))
        .max(4)
        .optional(),
      // Histories and recordings made before `count` say `double: true`; they still replay.
      double: z.boolean().optional().describe('Same as count: 2'),
    }),
    effect: 'destructive',
    target: ({ ref }) => ref,
    run: async ({ button = 'left', count, modifiers = [], double = false }, ctx, found) => {
      const clickCount = count ?? (double ? 2 : 1)
      const done = clickedVerb(button, clickCount, modifiers)
      const verb = done.replace(/ed$/, '').toLowerCase()
      const check = await checkClickable(found.element, ctx.signal)
      const blocked = checkFailure(check)
      if (blocked) return failed(`Could not ${verb} ${found.label}: ${blocked}.`)
      // A scan-marked element is clicked through the scan's own handle: a mark moved since cannot redirect it.
      const target = found.handle ?? found.locator
      try {
        await target.click({
          button,
          clickCount,
          modifiers: [...new Set(modifiers)],
          ...(check.position ? { position: check.position } : {}),
          timeout: session.settings.actionTimeoutMs,
          signal: ctx.signal,
        })
      } catch (error) {
        if (ctx.signal.aborted || isAbortError(error)) throw error
        const reason = blockingReason(describeError(error))
        return failed(`Could not ${verb} ${found.label}: ${reason ? `it ${reason}` : explainFailure(error)}.`)
      }
      return ok(`${done} ${found.label}.`)
    },
  })
}

/** "Clicked", "Double-clicked", "Double right-clicked", "Shift+clicked". */
function clickedVerb(button: string, count: number, modifiers: string[]): string {
  const kind = [clickCounts[count] ?? '', button === 'left' ? '' : button].filter(Boolean).join(' ')
  const verb = kind ? `${kind}-clicked` : 'clicked'
  const held = [...new Set(modifiers)].map((key) => `${key}+`).join('')
  return held ? `${held}${verb.toLowerCase()}` : capitalize(verb.toLowerCase())
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
