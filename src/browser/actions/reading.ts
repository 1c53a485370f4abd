import { z } from 'zod'
import { failed, ok } from '../../tool.ts'
import { quoteText } from '../../util/text.ts'
import type { BrowserToolSurface } from '../session/tool-surface.ts'
import { takeAriaSnapshot } from '../view/aria-snapshot.ts'
import { findElements } from '../view/find-elements.ts'
import { readableText } from '../view/readable-text.ts'
import { buildViewTree } from '../view/view-tree.ts'
import { defineBrowserTool } from './define-action.ts'
import { revealInLists } from './reveal.ts'

/** read_page answers are capped like page views, a little more generously (chars / 4 ≈ tokens). */
const readCapTokens = 8000

export function findTool(session: BrowserToolSurface) {
  return defineBrowserTool(session, {
    name: 'find',
    description:
      'Find elements anywhere on the page (not only on screen) whose name or text contains the given text; answers with their refs and where they are.',
    input: z.object({ text: z.string().min(1) }),
    effect: 'readOnly',
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

export function readPageTool(session: BrowserToolSurface) {
  return defineBrowserTool(session, {
    name: 'read_page',
    description:
      "Read the active page's text as Markdown (headings, paragraphs, lists, tables): for reading, not acting.",
    input: z.object({}),
    effect: 'readOnly',
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
