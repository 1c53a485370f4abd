import { z } from 'zod'
import { failed, ok } from '../../tool.ts'
import { selectTextInPage } from '../../util/select-text-in-page.ts'
import { quoteText } from '../../util/text.ts'
import type { BrowserToolSurface } from '../session/tool-surface.ts'
import { evaluateElement, evaluateFirst } from '../view/first-element.ts'
import { defineBrowserTool } from './define-action.ts'
import { refInput } from './ref-input.ts'

export function selectTextTool(session: BrowserToolSurface) {
  return defineBrowserTool(session, {
    name: 'select_text',
    description:
      "Select the first visible occurrence of `text` (inside `ref` when given), in the page or in a field or editor, before the page's highlight, bold or copy.",
    input: z.object({ text: z.string().min(1), ref: refInput.optional() }),
    effect: 'readOnly',
    target: ({ ref }) => ref,
    run: async ({ text }, ctx, found) => {
      const where = found ? ` in ${found.label}` : ''
      const selected = found
        ? await evaluateElement(found.element, selectTextInPage, text, ctx.signal)
        : await evaluateFirst(
            (await session.activePage()).locator('body'),
            selectTextInPage,
            text,
            ctx.signal,
          )
      if (selected.error !== undefined)
        return failed(`Could not select ${quoteText(text)}${where}: ${selected.error}.`)
      return ok(`Selected ${quoteText(selected.text ?? text, 200)}${where}.`)
    },
  })
}
