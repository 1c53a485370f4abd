import { createHash } from 'node:crypto'
import type { Page } from 'playwright-core'
import { truncate } from '../../util/text.ts'
import { countTokens, LineTokenCounter } from '../../util/tokens.ts'
import type { TabInfo } from '../browser-session.ts'
import { capturePage, type ScrollInfo } from './page-capture.ts'
import { nameList, type OffscreenSummary } from './scroll/offscreen-summary.ts'
import type { RefRegistry } from './stable-refs.ts'
import { cutLine, type Line, quote, renderViewport } from './view-render.ts'

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
  /** Remembers line counts from one view to the next (a session keeps one); without it every line is counted. */
  lineTokens?: LineTokenCounter
}

export const legend =
  'Legend: `- role "name" [state] [ref=id]: text`; act by ref; `*` marks what is new since the last view.'

/** The view's size in o200k tokens (the cap and the `observation` event use it). */
export { countTokens as estimateTokens } from '../../util/tokens.ts'

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

  // Lines that would say nothing (a single tab, a page that fits) are left out.
  const header = [`URL: ${truncate(url, 300)}`]
  if (title) header.push(`Title: ${truncate(title, 150)}`)
  const tabs = withActiveTitle(options.tabs, title)
  if (tabs.length > 1) header.push(`Tabs: ${formatTabs(tabs)}`)
  const scroll = formatScroll(captured.scroll)
  if (scroll) header.push(`Scroll: ${scroll}`)
  if (rendered.dialogs.length > 0) header.push(`Dialog open: ${rendered.dialogs.slice(0, 3).join(', ')}`)
  if (captured.scanFailure !== undefined) {
    header.push(
      `Note: the page scan failed (${truncate(captured.scanFailure, 120)}): this view is the accessibility snapshot alone, so elements clickable only by script and icon names may be missing, and text field values are hidden.`,
    )
  }
  header.push(legend)
  const above = formatSummary('Above the viewport', rendered.above)
  const below = formatSummary('Below the viewport', rendered.below)

  const cap = options.tokenCap ?? defaultTokenCap
  const fresh = registry.takeNew(url.split('#')[0] ?? url)
  const counter = options.lineTokens ?? new LineTokenCounter()
  const compose = (lines: Line[], cut: number, marker: (line: Line) => string): string[] => {
    const body = lines.map((line) => `${'  '.repeat(line.depth)}${marker(line)} ${line.body}`)
    if (lines.length === 0) body.push('(nothing on screen)')
    if (cut > 0) body.push(`… ${cut} more lines on screen cut to fit the size limit; use find or read_page.`)
    return [above, ...body, below].filter(Boolean)
  }
  const newMarker = (line: Line) => (line.ref && fresh.has(line.ref) ? '*' : '-')
  // Characters are a first guess at the budget; the real token count then
  // narrows it (dense markup and CJK text hold more tokens per character).
  const fixed = [...header, above, below].filter(Boolean).join('\n').length + 2
  let budget = cap * 4 - fixed - 120
  let fitted = capLines(rendered.lines, Math.max(0, budget))
  let lines = [...header, ...compose(fitted.lines, fitted.cut, newMarker)]
  let tokens = counter.count(lines)
  for (let attempt = 0; attempt < 4 && tokens > cap; attempt++) {
    budget = Math.floor((budget + fixed) * (cap / tokens) * 0.95) - fixed
    fitted = capLines(rendered.lines, Math.max(0, budget))
    lines = [...header, ...compose(fitted.lines, fitted.cut, newMarker)]
    tokens = counter.count(lines)
  }
  let text = lines.join('\n')
  while (tokens > cap && text.length > 0) {
    text = truncate(text, Math.floor(text.length * (cap / tokens) * 0.95), '\n…')
    tokens = countTokens(text)
  }
  const shown = fitted.lines.flatMap((line) => (line.ref ? [line.ref] : []))
  const fingerprint = createHash('sha1')
    .update(`${url}\n${compose(fitted.lines, fitted.cut, () => '-').join('\n')}`)
    .digest('hex')
    .slice(0, 16)
  return { text, url, title, refs: shown.length, tokens, fingerprint }
}

/** The tabs with the active one's title filled in from the view's scan (the tab list leaves it unread). */
export function withActiveTitle(tabs: readonly TabInfo[], title: string): TabInfo[] {
  return tabs.map((tab) => (tab.active && tab.title === '' ? { ...tab, title } : tab))
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
  if (above < 0.05 && below < 0.05) return ''
  return `${above.toFixed(1)} pages above, ${below.toFixed(1)} pages below`
}

function formatSummary(label: string, summary: OffscreenSummary): string {
  if (summary.elements === 0 && summary.headings.length === 0 && summary.landmarks.length === 0) return ''
  const parts = [`${summary.elements} interactive elements`]
  if (summary.headings.length > 0) parts.push(`headings: ${nameList(summary.headings, 8, 60)}`)
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
    if (line.kind !== 'text' || line.body.length <= 120) return line
    const shorter = { ...line, body: cutLine(line.body, 120) }
    total -= line.body.length - shorter.body.length
    return shorter
  })
  const dropped = new Set<Line>()
  const dropFromBottom = (accept: (line: Line) => boolean) => {
    for (const line of lines.toReversed()) {
      if (total <= budget) break
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
