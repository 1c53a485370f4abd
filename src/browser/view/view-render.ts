import { quote, truncate } from '../../util/text.ts'
import type { Box } from './aria-snapshot.ts'
import { emptySummary, type OffscreenSummary, tallyOffscreen } from './scroll/offscreen-summary.ts'
import { measureVisibility } from './scroll/scroll-clip.ts'
import { textWithin, type ViewChild, type ViewNode } from './view-tree.ts'

/**
 * Renders the on-screen part of the view tree in Playwright's line syntax
 * (`- role "name" [attributes] [ref=…]: text`), and sums up what is above and
 * below the viewport.
 */

export const interactiveRoles = new Set([
  'button',
  'link',
  'checkbox',
  'radio',
  'textbox',
  'searchbox',
  'combobox',
  'listbox',
  'option',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'tab',
  'switch',
  'slider',
  'spinbutton',
  'treeitem',
  // A grid's cells are what one selects, edits or opens (a double-click); a plain table's cells are not.
  'gridcell',
])
const overlayRoles = new Set(['listbox', 'menu', 'dialog', 'alertdialog', 'tooltip'])
const transparentRoles = new Set(['generic', 'none', 'presentation', 'rowgroup'])
/** On-screen text is shown in full up to this many characters a line; longer lines say what was left out. */
const maxTextChars = 600
const maxListOptions = 25

export interface Line {
  depth: number
  body: string
  ref?: string
  kind: 'element' | 'text'
  /** Kept whatever the cap: on-screen overlays and the focused element. */
  keep: boolean
}

export interface RenderedView {
  lines: Line[]
  above: OffscreenSummary
  below: OffscreenSummary
  dialogs: string[]
}

function showsRef(node: ViewNode): boolean {
  return node.ref !== undefined && actionable(node)
}

/** Whether the model may act on the node: the view shows its ref. */
export function actionable(node: ViewNode): boolean {
  return (
    interactiveRoles.has(node.role) ||
    node.source.cursor === 'pointer' ||
    node.tag !== undefined ||
    node.scan?.clickable === true ||
    node.scan?.editable === true
  )
}

export { quote }

function attributesOf(node: ViewNode): string[] {
  const source = node.source
  const scan = node.scan
  const attributes: string[] = []
  if (source.level) attributes.push(`[level=${source.level}]`)
  if (source.checked === true) attributes.push('[checked]')
  else if (source.checked === 'mixed') attributes.push('[checked=mixed]')
  if (source.pressed === true) attributes.push('[pressed]')
  else if (source.pressed === 'mixed') attributes.push('[pressed=mixed]')
  if (source.selected) attributes.push('[selected]')
  if (scan?.folder || (node.role === 'treeitem' && source.expanded !== undefined)) attributes.push('[folder]')
  if (scan?.expanded ?? source.expanded) attributes.push('[expanded]')
  else if (scan?.expanded === false || source.expanded === false) attributes.push('[collapsed]')
  if (source.disabled) attributes.push('[disabled]')
  if (source.invalid) attributes.push('[invalid]')
  if (source.active && node.role !== 'generic' && node.role !== 'iframe') attributes.push('[active]')
  if (scan?.inputType) attributes.push(`[type=${scan.inputType}]`)
  if (scan?.multiline || scan?.editable) attributes.push('[multiline]')
  if (scan?.readonly) attributes.push('[readonly]')
  if (scan?.multiple) attributes.push('[multiple]')
  if (scan?.range) attributes.push(rangeAttribute(scan.range))
  if (scan?.listens?.includes('dblclick')) attributes.push('[dblclick]')
  if (scan?.listens?.includes('contextmenu')) attributes.push('[contextmenu]')
  // Only the pointer's entering does something (a menu entry that opens its submenu): hover, not click.
  if (scan?.listens?.includes('hover') && !scan.listens.includes('click')) attributes.push('[hover]')
  // Shown only while its row or card is hovered: acting on it hovers that first, as a person would.
  if (scan?.onHover) attributes.push('[on hover]')
  // Offered though the page hides it from assistive tech: the model knows the page calls it hidden.
  if (node.shownHidden && node.ref) attributes.push('[aria-hidden]')
  if (scan?.draggable) attributes.push('[draggable]')
  if (scan?.droppable) attributes.push('[droppable]')
  if (scan?.scrollable) attributes.push('[scrollable]')
  if (source.placeholder) attributes.push(`[placeholder=${quote(source.placeholder, 40)}]`)
  const url = node.role === 'link' ? compactUrl(source.url) : ''
  if (url) attributes.push(`[url=${url}]`)
  if (!node.name && scan?.hint && !textWithin(node.children))
    attributes.push(`[icon=${scan.hint.replace(/[\s\]]+/g, '-')}]`)
  // An element that only takes a double click, a right click or a drop says so instead.
  const otherwise = scan?.editable || scan?.draggable || scan?.scrollable || scan?.droppable || scan?.listens
  if (node.role === 'generic' && showsRef(node) && (!otherwise || scan?.listens?.includes('click')))
    attributes.push('[clickable]')
  return attributes
}

/** `[value=50 min=0 max=100]`, leaving out a bound the page does not give; a worded value is quoted. */
function rangeAttribute({ value, min, max }: { value: string; min: string; max: string }): string {
  const shown = /^[\w.+-]+$/.test(value) ? value : quote(value, 30)
  const parts = [`value=${shown}`, min && `min=${min}`, max && `max=${max}`].filter(Boolean)
  return `[${parts.join(' ')}]`
}

/** Where a link goes, short: no scheme or `www.`, at most 60 characters; nothing for `#` and script links. */
function compactUrl(href: string | undefined): string {
  if (!href || href.startsWith('#') || /^javascript:/i.test(href)) return ''
  const short = href.replace(/^https?:\/\/(www\.)?/i, '').replace(/\s+/g, '')
  return truncate(short, 60)
}

/** `role "name" [attributes] [ref=…]: text`, without the leading marker. */
export function lineBody(node: ViewNode, withRef: boolean, extra: string[] = []): string {
  let body = node.role
  if (node.name) body += ` ${quote(node.name)}`
  const attributes = [...attributesOf(node), ...extra]
  if (attributes.length > 0) body += ` ${attributes.join(' ')}`
  if (withRef && node.ref) body += ` [ref=${node.ref}]`
  const value = shownValue(node)
  if (value) body += `: ${value}`
  return body
}

function shownValue(node: ViewNode): string {
  if (node.text === undefined || node.text === '') return ''
  if (node.scan?.masked) return '••••••'
  if (node.text === node.name) return ''
  return cutLine(node.text.replace(/\s+/g, ' '))
}

/**
 * A line of text cut at a word boundary near `max`, ending with how much was
 * left out and where the rest is, so the model knows to read on.
 */
export function cutLine(text: string, max = maxTextChars): string {
  if (text.length <= max) return text
  let cut = text.lastIndexOf(' ', max)
  if (cut < max * 0.8) cut = max
  return `${text.slice(0, cut)}… [${text.length - cut} more chars: read_page]`
}

export function renderViewport(
  roots: ViewChild[],
  viewport: { width: number; height: number },
): RenderedView {
  const screen: Box = { x: 0, y: 0, width: viewport.width, height: viewport.height }
  const { visible, hiddenBy, hidden } = measureVisibility(roots, screen, actionable)

  const view: RenderedView = { lines: [], above: emptySummary(), below: emptySummary(), dialogs: [] }
  const summarize = (node: ViewNode): void => {
    tallyOffscreen(node, node.box && node.box.y + node.box.height <= 0 ? view.above : view.below, showsRef)
  }

  const renderChildren = (
    children: ViewChild[],
    depth: number,
    keep: boolean,
    listParent: boolean,
    parentVisible: boolean,
  ): void => {
    let options = 0
    let window: ListWindow | undefined
    for (const [i, child] of children.entries()) {
      if (typeof child === 'string') {
        if (parentVisible && textVisible(children, i, viewport.height) && !repeatsNeighbour(children, i)) {
          view.lines.push({ depth, body: `text: ${cutLine(child)}`, kind: 'text', keep })
        }
        continue
      }
      if (!visible.get(child)?.any) {
        // What a scrolling container hides is counted on its line, not as the page's off screen.
        if (!hiddenBy.has(child)) summarize(child)
        continue
      }
      if (listParent && child.role === 'option') {
        window ??= listWindow(children, visible)
        const shown = window
        if (i < shown.first) continue
        if (i === shown.first && shown.before > 0)
          view.lines.push({ depth, body: `text: … ${shown.before} more options before`, kind: 'text', keep })
        if (++options > maxListOptions) {
          view.lines.push({ depth, body: `text: … ${shown.after} more options`, kind: 'text', keep })
          break
        }
      }
      renderNode(child, depth, keep)
    }
  }

  const renderNode = (node: ViewNode, depth: number, inheritedKeep: boolean): void => {
    const self = visible.get(node)?.self ?? false
    const keep = inheritedKeep || (self && (overlayRoles.has(node.role) || node.scan?.overlay === true))
    if (self && (node.role === 'dialog' || node.role === 'alertdialog')) {
      view.dialogs.push(node.name ? `${node.role} ${quote(node.name, 60)}` : node.role)
    }
    const withRef = showsRef(node)
    const transparent =
      transparentRoles.has(node.role) && !node.name && !withRef && attributesOf(node).length === 0
    if (transparent) {
      if (node.text && self)
        view.lines.push({ depth, body: `text: ${cutLine(node.text)}`, kind: 'text', keep })
      renderChildren(node.children, depth, keep, false, self)
      return
    }
    const said = hidden.get(node)
    const body = lineBody(node, withRef, said ? [`[${said}]`] : [])
    const line: Line = { depth, body, kind: 'element', keep: keep || !!node.source.active }
    if (withRef && node.ref) line.ref = node.ref
    const at = view.lines.push(line)
    renderChildren(node.children, depth + 1, keep, node.role === 'combobox' || node.role === 'listbox', self)
    // A bare structural line with nothing under it (an empty layout cell, a nameless image) says nothing.
    if (at === view.lines.length && body === node.role) view.lines.pop()
  }

  renderChildren(roots, 0, false, false, true)
  return view
}

interface ListWindow {
  /** Index of the first option child shown. */
  first: number
  /** Shown options left out before it, and after the last one shown. */
  before: number
  after: number
}

/**
 * Which of a long list's on-screen options are shown: the first ones, or,
 * when one is selected further down (a closed select's value), those around it.
 */
function listWindow(children: ViewChild[], visible: Map<ViewNode, { any: boolean }>): ListWindow {
  const options: number[] = []
  let selected = -1
  for (const [i, child] of children.entries()) {
    if (typeof child === 'string' || child.role !== 'option' || !visible.get(child)?.any) continue
    if (child.source.selected && selected < 0) selected = options.length
    options.push(i)
  }
  const start =
    options.length <= maxListOptions || selected < maxListOptions
      ? 0
      : Math.min(selected - Math.floor(maxListOptions / 2), options.length - maxListOptions)
  return {
    first: options[start] ?? 0,
    before: start,
    after: Math.max(0, options.length - start - maxListOptions),
  }
}

/** A label's text next to the control it names says nothing the control's line does not. */
function repeatsNeighbour(siblings: ViewChild[], index: number): boolean {
  const text = (siblings[index] as string).trim()
  const before = siblings[index - 1]
  const after = siblings[index + 1]
  return (
    (typeof before === 'object' && before.name.trim() === text) ||
    (typeof after === 'object' && after.name.trim() === text)
  )
}

/** Text has no box: place it by its element neighbours. */
function textVisible(siblings: ViewChild[], index: number, viewportHeight: number): boolean {
  for (let i = index - 1; i >= 0; i--) {
    const previous = siblings[i]
    if (typeof previous !== 'string' && previous?.box) {
      if (previous.box.y >= viewportHeight) return false
      break
    }
  }
  for (let i = index + 1; i < siblings.length; i++) {
    const next = siblings[i]
    if (typeof next !== 'string' && next?.box) {
      if (next.box.y + next.box.height <= 0) return false
      break
    }
  }
  return true
}
