import { z } from 'zod'
import { notExported } from '../../../recording/action-descriptor.ts'
import { failed, ok } from '../../../tool.ts'
import { quoteText } from '../../../util/text.ts'
import type { BrowserToolSurface } from '../../session/tool-surface.ts'
import { takeAriaSnapshot } from '../../view/aria-snapshot.ts'
import { findElements } from '../../view/find-elements.ts'
import { readableText } from '../../view/readable-text.ts'
import { buildViewTree } from '../../view/view-tree.ts'
import { type BrowserActionDescriptor, defineBrowserTool } from '../define-action.ts'
import { revealInLists } from '../reveal.ts'

/** read_page answers are capped like page views, a little more generously (chars / 4 ≈ tokens). */
const readCapTokens = 8000

export const findAction: BrowserActionDescriptor = {
  name: 'find',
  description:
    'Find elements anywhere on the page (not only on screen) whose name or text contains `text`, with their refs.',
  effect: 'readOnly',
  docs: {
    input: '`{ text }`',
    does: 'elements anywhere on the page whose name or text holds the text, with refs; when none does, a virtualized list (one whose rows change as it scrolls) is scrolled a rendered stretch at a time until the text appears (at most 1000 steps and 8 s), its row left in the middle of the list',
  },
  stuck: 'observes',
  record: { element: 'none', outcome: true },
  playwright: notExported,
}

export function findTool(session: BrowserToolSurface) {
  return defineBrowserTool(session, {
    action: findAction,
    input: z.object({ text: z.string().min(1) }),
    run: async ({ text }, ctx) => {
      const page = await session.activePage()
      let captured = await session.capture(page, true, ctx.signal)
      let found = findElements(captured.tree.roots, text, captured.scroll.viewportHeight)
      // A virtualized list renders only the rows in sight: scrolled through, it may bring the text in.
      if (found.total === 0 && (await revealInLists(page, text, ctx.signal))) {
        captured = await session.capture(page, true, ctx.signal)
        found = findElements(captured.tree.roots, text, captured.scroll.viewportHeight)
      }
      if (found.total === 0) return failed(`No element on the page contains ${quoteText(text)}.`)
      const more = found.total > found.lines.length ? `\n… and ${found.total - found.lines.length} more.` : ''
      const count = found.total === 1 ? '1 element' : `${found.total} elements`
      return ok(`Found ${count} containing ${quoteText(text)}:\n${found.lines.join('\n')}${more}`)
    },
  })
}

export const readPageAction: BrowserActionDescriptor = {
  name: 'read_page',
  description: "Read the page's text as Markdown, for reading, not acting.",
  effect: 'readOnly',
  docs: { input: '`{}`', does: "the page's readable text as Markdown, for reading, not acting" },
  stuck: 'observes',
  record: { element: 'none', outcome: true },
  playwright: notExported,
}

export function readPageTool(session: BrowserToolSurface) {
  return defineBrowserTool(session, {
    action: readPageAction,
    input: z.object({}),
    run: async (_input, ctx) => {
      const page = await session.activePage()
      const tree = buildViewTree(await takeAriaSnapshot(page, ctx.signal))
      const text = readableText(tree.roots)
      if (!text) return ok('The page has no readable text.')
      const cap = readCapTokens * 4
      if (text.length <= cap) return ok(text)
      const rest = text.length - cap
      return ok(
        `${text.slice(0, cap)}\n\n… (${rest} more characters not shown; use find to locate specific text)`,
      )
    },
  })
}
