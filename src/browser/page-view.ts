import { createHash } from 'node:crypto'
import type { Page } from 'playwright-core'
import { truncate } from '../util/text.ts'
import { capturePage, type ScrollInfo } from './page-capture.ts'
import type { RefRegistry } from './refs.ts'
import type { TabInfo } from './types.ts'
import { type Line, type OffscreenSummary, quote, renderViewport } from './view-render.ts'

/**
 * What the model sees of a page: a header (URL, title, tabs, scroll position,
 * open dialog), the on-screen elements in Playwright's line syntax with stable
 * refs, and a summary of what is above and below. Bounded by a token cap.
 */

export const defaultTokenCap = 6000

export interface PageView {
  text: string
  url: string
  title: string
  /** Element refs shown in the view. */
  refs: number
  tokens: number
  fingerprint: string
}

export interface PageViewOptions {
  tabs: TabInfo[]
  tokenCap?: number
}

export const legend =
  'Legend: each line is `- role "name" [state] [ref=id]: text`; act on elements by their ref. A line starting with `*` instead of `-` is an element that appeared since the previous view.'

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4)
}

export async function buildPageView(
  page: Page,
  registry: RefRegistry,
  options: PageViewOptions,
  signal: AbortSignal,
): Promise<PageView> {
  const captured = await capturePage(page, registry, { wholePage: false }, signal)
  const url = page.url()
  const title = captured.title
  const viewport = { width: captured.scroll.viewportWidth, height: captured.scroll.viewportHeight }
  const rendered = renderViewport(captured.tree.roots, viewport)

  const header = [
    `URL: ${truncate(url, 300)}`,
    `Title: ${truncate(title, 150) || '(none)'}`,
    `Tabs: ${formatTabs(options.tabs)}`,
    `Scroll: ${formatScroll(captured.scroll)}`,
  ]
  if (rendered.dialogs.length > 0) header.push(`Dialog open: ${rendered.dialogs.slice(0, 3).join(', ')}`)
  header.push(legend)
  const above = formatSummary('Above the viewport', rendered.above)
  const below = formatSummary('Below the viewport', rendered.below)

  const capChars = (options.tokenCap ?? defaultTokenCap) * 4
  const fixed = [...header, above, below].filter(Boolean).join('\n').length + 2
  const { lines, cut } = capLines(rendered.lines, Math.max(0, capChars - fixed - 120))
  const bodyOf = (marker: (line: Line) => string) => {
    const body = lines.map((line) => `${'  '.repeat(line.depth)}${marker(line)} ${line.body}`)
    if (lines.length === 0) body.push('(nothing on screen)')
    if (cut > 0) body.push(`… ${cut} more lines on screen cut to fit the size limit; use find or read_page.`)
    return [above, ...body, below].filter(Boolean).join('\n')
  }
  const shown = lines.flatMap((line) => (line.ref ? [line.ref] : []))
  const fingerprint = createHash('sha1')
    .update(`${url}\n${bodyOf(() => '-')}`)
    .digest('hex')
    .slice(0, 16)
  const fresh = registry.takeNew(url.split('#')[0] ?? url)
  let text = `${header.join('\n')}\n${bodyOf((line) => (line.ref && fresh.has(line.ref) ? '*' : '-'))}`
  text = truncate(text, capChars, '\n…')
  return { text, url, title, refs: shown.length, tokens: estimateTokens(text), fingerprint }
}

function formatTabs(tabs: TabInfo[]): string {
  const shown = tabs.slice(0, 10).map((tab) => {
    const label = `${tab.id} ${quote(tab.title || tab.url, 60)}`
    return tab.active ? `${label} (active)` : label
  })
  if (tabs.length > shown.length) shown.push(`… ${tabs.length - shown.length} more`)
  return shown.join(' | ')
}

function formatScroll(scroll: ScrollInfo): string {
  const height = Math.max(1, scroll.viewportHeight)
  const above = scroll.scrollY / height
  const below = Math.max(0, scroll.scrollHeight - scroll.scrollY - scroll.viewportHeight) / height
  if (above < 0.05 && below < 0.05) return 'the whole page fits on screen'
  return `${above.toFixed(1)} pages above, ${below.toFixed(1)} pages below`
}

function formatSummary(label: string, summary: OffscreenSummary): string {
  if (summary.elements === 0 && summary.headings.length === 0 && summary.landmarks.length === 0) return ''
  const parts = [`${summary.elements} interactive elements`]
  if (summary.headings.length > 0) {
    const headings = summary.headings.slice(0, 8).map((heading) => quote(heading, 60))
    const more = summary.headings.length > 8 ? ` (+${summary.headings.length - 8} more)` : ''
    parts.push(`headings: ${headings.join(', ')}${more}`)
  }
  if (summary.landmarks.length > 0) parts.push(`landmarks: ${summary.landmarks.slice(0, 8).join(', ')}`)
  return `${label}: ${parts.join('; ')}.`
}

/**
 * Fits the lines into `budget` characters: shortens long text, then drops text
 * lines, then the lowest lines on screen, and only then the lines that are
 * kept whatever the cap (on-screen overlays, the focused element).
 */
export function capLines(input: Line[], budget: number): { lines: Line[]; cut: number } {
  const size = (line: Line) => line.depth * 2 + line.body.length + 3
  let lines = input.slice()
  let total = lines.reduce((sum, line) => sum + size(line), 0)
  if (total <= budget) return { lines, cut: 0 }
  lines = lines.map((line) => {
    if (line.kind !== 'text' || line.body.length <= 90) return line
    const shorter = { ...line, body: truncate(line.body, 90) }
    total -= line.body.length - shorter.body.length
    return shorter
  })
  const dropped = new Set<Line>()
  const dropFromBottom = (accept: (line: Line) => boolean) => {
    for (let i = lines.length - 1; i >= 0 && total > budget; i--) {
      const line = lines[i]!
      if (dropped.has(line) || !accept(line)) continue
      dropped.add(line)
      total -= size(line)
    }
  }
  dropFromBottom((line) => !line.keep && line.kind === 'text')
  dropFromBottom((line) => !line.keep)
  dropFromBottom(() => true)
  return { lines: lines.filter((line) => !dropped.has(line)), cut: dropped.size }
}
