import { quote } from '../../../util/text.ts'
import type { Box } from '../aria-snapshot.ts'
import { textWithin, type ViewChild, type ViewNode } from '../view-tree.ts'

/**
 * What is out of sight, told the same way for the window and for a container that scrolls its own
 * content: how much lies on each side, its headings, and for a container the names of the items nearest
 * its edges (see scroll-clip.ts for what is out of sight).
 */

/** What one side of the screen or of a scrolling container holds out of sight. */
export interface OffscreenSummary {
  elements: number
  headings: string[]
  landmarks: string[]
}

export interface Visibility {
  /** The node's own box is on screen and inside every scrolling container around it. */
  self: boolean
  /** It or something inside it is. */
  any: boolean
}

export interface Measured {
  visible: Map<ViewNode, Visibility>
  /** Nodes the screen would show but a scrolling container around them hides, with that container. */
  hiddenBy: Map<ViewNode, ViewNode>
  /** Per scrolling container, what it hides as the view says it: `3 options above, 22 below; just below: "Fig", …`. */
  hidden: Map<ViewNode, string>
}

/**
 * Bounds on what a container's summary names, so a page of many panels stays
 * within the view's budget: names a side, headings a side, containers named
 * (in page order, those on screen; the rest are counted only).
 */
const panelNames = 3
const panelHeadings = 3
export const namedPanels = 4
const nameChars = 40

const landmarkRoles = new Set([
  'banner',
  'navigation',
  'main',
  'contentinfo',
  'complementary',
  'search',
  'form',
  'region',
])

export function emptySummary(): OffscreenSummary {
  return { elements: 0, headings: [], landmarks: [] }
}

/** Adds what `node` holds to `summary`: elements the view would give a ref (`shows`), headings, landmarks. */
export function tallyOffscreen(
  node: ViewNode,
  summary: OffscreenSummary,
  shows: (node: ViewNode) => boolean,
): void {
  if (shows(node)) summary.elements++
  if (node.role === 'heading' && summary.headings.length < 40) {
    const heading = headingText(node)
    if (heading) summary.headings.push(heading)
  }
  if (landmarkRoles.has(node.role) && (node.role !== 'region' || node.name)) {
    const landmark = node.name ? `${node.role} ${quote(node.name, 40)}` : node.role
    if (!summary.landmarks.includes(landmark)) summary.landmarks.push(landmark)
  }
  for (const child of node.children) if (typeof child !== 'string') tallyOffscreen(child, summary, shows)
}

/** `"a", "b" (+3 more)`: the first `shown` names, quoted and cut at a word to `max`. */
export function nameList(names: string[], shown: number, max: number): string {
  const more = names.length > shown ? ` (+${names.length - shown} more)` : ''
  return `${names
    .slice(0, shown)
    .map((name) => JSON.stringify(cutAtWord(name, max)))
    .join(', ')}${more}`
}

/**
 * `text` cut to `max` characters at a word: the scrubber replaces a secret's
 * whole value, so a cut through a word (a key, a code) would show a piece of
 * it that no scrubbing catches. A single word too long is left out whole.
 */
function cutAtWord(text: string, max: number): string {
  if (text.length <= max) return text
  const space = text.lastIndexOf(' ', max - 1)
  return space > 0 ? `${text.slice(0, space)}…` : '…'
}

/**
 * A heading's text. Playwright leaves a heading nameless when it holds a link
 * (Wikipedia's "[edit]"): its text is then read from its children, without the
 * edit link.
 */
function headingText(node: ViewNode): string {
  if (node.name) return node.name
  const children = node.children.filter(
    (child) => typeof child === 'string' || !/^\[?\s*edit\b/i.test(child.name || textWithin(child.children)),
  )
  return textWithin(children)
    .replace(/[\s[\]|]+$/, '')
    .trim()
}

/** Roles that make up a scrolling list's content: what "N above, M below" counts. */
export const itemNouns: Record<string, string> = {
  option: 'options',
  row: 'rows',
  listitem: 'items',
  treeitem: 'items',
  menuitem: 'items',
  menuitemcheckbox: 'items',
  menuitemradio: 'items',
  article: 'items',
}

type SideName = 'above' | 'below' | 'left' | 'right'
const sideNames: SideName[] = ['above', 'below', 'left', 'right']
const sideWords: Record<SideName, string> = {
  above: 'above',
  below: 'below',
  left: 'to the left',
  right: 'to the right',
}

/** Which side of the container's box an item it hides lies on (none when the screen, not the container, hides it). */
function sideOf(item: Box, box: Box): SideName | undefined {
  if (item.y + item.height <= box.y) return 'above'
  if (item.y >= box.y + box.height) return 'below'
  if (item.x + item.width <= box.x) return 'left'
  if (item.x >= box.x + box.width) return 'right'
  return undefined
}

interface Side {
  /** The items it hides on this side, in page order. */
  items: { node: ViewNode; box: Box }[]
  summary: OffscreenSummary
}

/**
 * `3 options above, 22 below`, from the items the container hides (those the
 * page has not rendered yet estimated from the room left to scroll); a
 * container of plain blocks (a feed's posts, a mail list's rows) counts its
 * blocks as items. When `named`, each side also gives its headings and the
 * names of the items nearest the container's edge: what scrolling it shows.
 * `more below` when it hides content but no item.
 */
export function describeHidden(
  scroller: ViewNode,
  adopted: ViewNode[],
  measured: Measured,
  actionable: (node: ViewNode) => boolean,
  named: boolean,
): string {
  const box = scroller.box
  if (!box) return ''
  const shows = (node: ViewNode) => node.ref !== undefined && actionable(node)
  const sides = (): Record<SideName, Side> => ({
    above: { items: [], summary: emptySummary() },
    below: { items: [], summary: emptySummary() },
    left: { items: [], summary: emptySummary() },
    right: { items: [], summary: emptySummary() },
  })
  // Items with a list role where the container has them (a listbox's options), else its outermost hidden blocks.
  const listed = sides()
  const blocks = sides()
  const nouns = new Map<string, number>()
  let elements = 0
  const visit = (node: ViewNode, children: ViewChild[], inHidden: boolean): void => {
    // The container's blocks are its children or a content wrapper's; a piece of a half-shown row is no item.
    const holdsItems =
      node === scroller ||
      (node.box !== undefined && (node.box.height > box.height || node.box.width > box.width))
    for (const child of children) {
      if (typeof child === 'string') continue
      const hiddenHere = measured.hiddenBy.get(child) === scroller
      const side = hiddenHere && child.box ? sideOf(child.box, box) : undefined
      const noun = itemNouns[child.role]
      if (hiddenHere && child.box && noun) {
        nouns.set(noun, (nouns.get(noun) ?? 0) + 1)
        if (side) listed[side].items.push({ node: child, box: child.box })
        continue
      }
      if (side && child.box && !inHidden && holdsItems) {
        blocks[side].items.push({ node: child, box: child.box })
        tallyOffscreen(child, blocks[side].summary, shows)
      }
      if (hiddenHere && actionable(child)) elements++
      if (hiddenHere || measured.visible.get(child)?.any) visit(child, child.children, inHidden || hiddenHere)
    }
  }
  visit(scroller, [...scroller.children, ...adopted], false)
  const noun = [...nouns.entries()].sort((a, b) => b[1] - a[1])[0]?.[0]
  const chosen = noun ? listed : blocks
  for (const side of sideNames) chosen[side].summary.headings = blocks[side].summary.headings
  const counted = (side: SideName) => chosen[side].items.length
  const room = scroller.scan?.scrollRoom
  const parts: string[] = []
  if (counted('above') + counted('below') > 0 || (noun && counted('left') + counted('right') === 0)) {
    // A virtualized list renders a few items past its edge: the rest is estimated from the room left.
    const [above, below] = [chosen.above.items, chosen.below.items]
    const heights = [...above, ...below].reduce((sum, item) => sum + item.box.height, 0)
    const itemHeight = heights / Math.max(1, above.length + below.length)
    const estimate = (count: number, beyond: number): string => {
      const more = itemHeight > 0 ? Math.floor(beyond / itemHeight) : 0
      return more > 0 ? `~${count + more}` : String(count)
    }
    const aboveEdge = above.reduce((edge, item) => Math.min(edge, item.box.y), box.y)
    const belowEdge = below.reduce(
      (edge, item) => Math.max(edge, item.box.y + item.box.height),
      box.y + box.height,
    )
    const beyondAbove = room ? aboveEdge - (box.y - room.up) : 0
    const beyondBelow = room ? box.y + box.height + room.down - belowEdge : 0
    parts.push(
      `${estimate(above.length, beyondAbove)} ${noun ?? 'items'} above, ${estimate(below.length, beyondBelow)} below`,
    )
  } else if (elements > 0) {
    parts.push(`${elements} hidden interactive elements`)
  } else if (room && (room.up > 1 || room.down > 1)) {
    parts.push(
      `more ${[room.up > 1 ? 'above' : '', room.down > 1 ? 'below' : ''].filter(Boolean).join(' and ')}`,
    )
  }
  if (counted('left') + counted('right') > 0) {
    parts.push(`${counted('left')} ${noun ?? 'items'} to the left, ${counted('right')} to the right`)
  } else if (room && (room.left > 1 || room.right > 1)) {
    const sides = [room.left > 1 ? 'left' : '', room.right > 1 ? 'right' : ''].filter(Boolean)
    parts.push(`more to the ${sides.join(' and ')}`)
  }
  if (named) for (const side of sideNames) parts.push(...nameSide(side, chosen[side]))
  return parts.join('; ')
}

/**
 * `headings above: "Monday"; just above: "Task 7", "Task 8"`: the side's
 * headings nearest the edge, then the names of the items nearest it, in page
 * order (scrolling a page's worth shows them).
 */
function nameSide(side: SideName, { items, summary }: Side): string[] {
  const before = side === 'above' || side === 'left'
  const near = (list: string[], count: number) => (before ? list.slice(-count) : list.slice(0, count))
  const headings = near(summary.headings, panelHeadings)
  const names = items
    .map((item) => itemName(item.node))
    .filter((name) => name !== '' && !headings.includes(name))
  const parts: string[] = []
  if (headings.length > 0)
    parts.push(`headings ${sideWords[side]}: ${nameList(headings, panelHeadings, nameChars)}`)
  const nearest = near(names, panelNames)
  if (nearest.length > 0) {
    const rest = names.length - nearest.length
    const list = nameList(nearest, panelNames, nameChars)
    parts.push(
      `just ${sideWords[side]}: ${before && rest > 0 ? `(+${rest} more) ` : ''}${list}${!before && rest > 0 ? ` (+${rest} more)` : ''}`,
    )
  }
  return parts
}

/**
 * An item as a person would name it: its accessible name, else the first words
 * of its text (without the elements the scan added under it, whose text its
 * own already holds).
 */
function itemName(item: ViewNode): string {
  const own = item.children.filter((child) => typeof child === 'string' || child.tag === undefined)
  // Read past the name's length, so it can be cut at a word.
  return (item.name || item.text || textWithin(own, undefined, 2 * nameChars)).replace(/\s+/g, ' ').trim()
}
