import { z } from 'zod'
import { stringField } from '../../recording/action-descriptor.ts'
import { quote } from '../../recording/spec-text.ts'
import { failed, ok } from '../../tool.ts'
import { selectTextInPage } from '../../util/select-text-in-page.ts'
import { quoteText } from '../../util/text.ts'
import type { BrowserToolSurface } from '../session/tool-surface.ts'
import { evaluateElement, evaluateFirst } from '../view/first-element.ts'
import { type BrowserActionDescriptor, defineBrowserTool } from './define-action.ts'
import { refInput } from './ref-input.ts'

export const selectTextAction: BrowserActionDescriptor = {
  name: 'select_text',
  description: 'Select the first visible `text` (inside `ref` if given), e.g. to highlight, bold or copy it.',
  effect: 'readOnly',
  docs: {
    input: '`{ text, ref? }`',
    does: 'selects the first visible occurrence of the text, inside the element when given (in the page, a field or an editor)',
  },
  stuck: 'changes',
  record: { element: 'optional', outcome: true },
  playwright: ({ input }, { target, text }) => [
    `await ${target ?? "page.locator('body')"}.evaluate(${quote(`(${selectTextInPage.toString()})`)}, ${text(stringField(input, 'text'))})`,
  ],
}

export function selectTextTool(session: BrowserToolSurface) {
  return defineBrowserTool(session, {
    action: selectTextAction,
    input: z.object({ text: z.string().min(1), ref: refInput.optional() }),
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
