import { z } from 'zod'
import { onTarget } from '../../recording/action-descriptor.ts'
import { clickOptions } from '../../recording/spec-options.ts'
import { failed, isAbortError, ok } from '../../tool.ts'
import { describeError } from '../../util/describe-error.ts'
import type { BrowserToolSurface } from '../session/tool-surface.ts'
import { checkClickable, checkFailure } from './click-check.ts'
import { type BrowserActionDescriptor, defineBrowserTool } from './define-action.ts'
import { blockingReason, explainFailure } from './explain-failure.ts'
import { refInput } from './ref-input.ts'

const clickCounts = ['', '', 'Double', 'Triple'] as const

export const clickAction: BrowserActionDescriptor = {
  name: 'click',
  description:
    'Click an element; `count` 2/3 for double/triple, `button` right/middle (context menu), `modifiers` held.',
  effect: 'destructive',
  docs: {
    input:
      "`{ ref, button?: 'left'\\|'right'\\|'middle', count?: 1\\|2\\|3, modifiers?: ('Alt'\\|'Control'\\|'Meta'\\|'Shift')[] }`",
    does: "clicks the element; `count` 2 or 3 for double and triple clicks, `button` for right and middle clicks, `modifiers` held while clicking (`double: true`, of older recordings, is `count: 2`); the element is first scrolled into view within every scrolling ancestor (as Playwright's own actions do) and clicked at the middle of its visible part, and the click is refused, naming what is on top, only when a hit test there lands on an element that would take it",
  },
  stuck: 'changes',
  record: { element: 'required', outcome: true },
  playwright: onTarget((target, step) => [`await ${target}.click(${clickOptions(step.input)})`]),
}

export function clickTool(session: BrowserToolSurface) {
  return defineBrowserTool(session, {
    action: clickAction,
    input: z.object({
      ref: refInput,
      button: z.enum(['left', 'right', 'middle']).optional(),
      count: z.number().int().min(1).max(3).optional(),
      modifiers: z
        .array(z.enum(['Alt', 'Control', 'Meta', 'Shift']))
        .max(4)
        .optional(),
      // Histories and recordings made before `count` say `double: true`; they still replay.
      double: z.boolean().optional(),
    }),
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

export const hoverAction: BrowserActionDescriptor = {
  name: 'hover',
  description: 'Move the mouse over an element (hover menus, tooltips).',
  effect: 'readOnly',
  docs: { input: '`{ ref }`', does: 'moves the mouse over the element (hover menus, tooltips)' },
  stuck: 'changes',
  record: { element: 'required', outcome: true },
  playwright: onTarget((target) => [`await ${target}.hover()`]),
}

export function hoverTool(session: BrowserToolSurface) {
  return defineBrowserTool(session, {
    action: hoverAction,
    input: z.object({ ref: refInput }),
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
