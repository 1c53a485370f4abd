import type { Box } from './aria-snapshot.ts'
import type { ViewChild, ViewNode } from './view-tree.ts'

/**
 * What of the tree is on screen, clipped by the screen and by every container
 * that scrolls its own content (a listbox's viewport, a grid's body): an
 * option scrolled out of its list is off screen exactly as a paragraph below
 * the window is. For each such container, how many of its items it hides on
 * each side, so the view can say what scrolling it would show.
 */

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
  /** Per scrolling container, what it hides as the view says it: `3 options above, 22 below`. */
  hidden: Map<ViewNode, string>
}

/** Roles that make up a scrolling list's content: what "N above, M below" counts. */
const itemNouns: Record<string, string> = {
  option: 'options',
  row: 'rows',
  listitem: 'items',
  treeitem: 'items',
  menuitem: 'items',
  menuitemcheckbox: 'items',
  menuitemradio: 'items',
  article: 'items',
}

export function intersects(box: Box, clip: Box): boolean {
  return (
    box.x < clip.x + clip.width &&
    box.x + box.width > clip.x &&
    box.y < clip.y + clip.height &&
    box.y + box.height > clip.y
  )
}

function intersection(a: Box, b: Box): Box {
  const x = Math.max(a.x, b.x)
  const y = Math.max(a.y, b.y)
  const right = Math.min(a.x + a.width, b.x + b.width)
  const bottom = Math.min(a.y + a.height, b.y + b.height)
  return { x, y, width: Math.max(0, right - x), height: Math.max(0, bottom - y) }
}

export function measureVisibility(
  roots: ViewChild[],
  screen: Box,
  actionable: (node: ViewNode) => boolean,
): Measured {
  const measured: Measured = { visible: new Map(), hiddenBy: new Map(), hidden: new Map() }
  const scrollers: ViewNode[] = []
  // A zero-size node (an option of a closed select, visually hidden text) is where its parent is.
  const measure = (
    node: ViewNode,
    clip: Box,
    screenClip: Box,
    parentSelf: boolean,
    scroller: ViewNode | undefined,
  ): boolean => {
    const { box } = node
    const sized = box !== undefined && box.width > 0 && box.height > 0
    // What a hover shows is on screen where its row is, wherever the page parks it meanwhile.
    const parked = node.concealed === true || node.scan?.onHover === true
    const self = sized && !parked ? intersects(box, clip) : parentSelf
    // Outside its scroller's box, scrolling that container is what shows it, wherever the screen is.
    if (sized && !self && scroller?.box && (!intersects(box, scroller.box) || intersects(box, screenClip)))
      measured.hiddenBy.set(node, scroller)
    let childClip = clip
    let childScreen = screenClip
    let childScroller = scroller
    if (node.role === 'iframe' && node.box) {
      childClip = node.box
      childScreen = node.box
    } else if (sized && node.scan?.scrollable) {
      childClip = intersection(clip, box)
      childScroller = node
      scrollers.push(node)
    }
    let any = self
    for (const child of node.children)
      if (typeof child !== 'string' && measure(child, childClip, childScreen, self, childScroller)) any = true
    measured.visible.set(node, { self, any })
    return any
  }
  for (const root of roots) if (typeof root !== 'string') measure(root, screen, screen, true, undefined)
  for (const scroller of scrollers) {
    const said = describeHidden(scroller, measured, actionable)
    if (said) measured.hidden.set(scroller, said)
  }
  return measured
}

interface Side {
  count: number
  /** How far the counted items reach, to tell whether more lie beyond them (a virtualized list). */
  edge: number
  size: number
}

/**
 * `3 options above, 22 below`, from the items the container hides (those the
 * page has not rendered yet estimated from the room left to scroll), or
 * `more below` when it hides content but no item.
 */
function describeHidden(
  scroller: ViewNode & { box?: Box },
  measured: Measured,
  actionable: (node: ViewNode) => boolean,
): string {
  const box = scroller.box
  if (!box) return ''
  const above: Side = { count: 0, edge: box.y, size: 0 }
  const below: Side = { count: 0, edge: box.y + box.height, size: 0 }
  const nouns = new Map<string, number>()
  let elements = 0
  const visit = (node: ViewNode): void => {
    for (const child of node.children) {
      if (typeof child === 'string') continue
      const by = measured.hiddenBy.get(child)
      const noun = itemNouns[child.role]
      if (by === scroller && child.box && noun) {
        nouns.set(noun, (nouns.get(noun) ?? 0) + 1)
        if (child.box.y + child.box.height <= box.y) {
          above.count++
          above.edge = Math.min(above.edge, child.box.y)
          above.size += child.box.height
        } else if (child.box.y >= box.y + box.height) {
          below.count++
          below.edge = Math.max(below.edge, child.box.y + child.box.height)
          below.size += child.box.height
        }
        continue
      }
      if (by === scroller && actionable(child)) elements++
      if (by === scroller || measured.visible.get(child)?.any) visit(child)
    }
  }
  visit(scroller)
  const room = scroller.scan?.scrollRoom
  const noun = [...nouns.entries()].sort((a, b) => b[1] - a[1])[0]?.[0]
  const parts: string[] = []
  if (noun) {
    // A virtualized list renders a few items past its edge: the rest is estimated from the room left.
    const itemHeight = (above.size + below.size) / Math.max(1, above.count + below.count)
    const estimate = (side: Side, beyond: number): string => {
      const more = itemHeight > 0 ? Math.floor(beyond / itemHeight) : 0
      return more > 0 ? `~${side.count + more}` : String(side.count)
    }
    const beyondAbove = room ? above.edge - (box.y - room.up) : 0
    const beyondBelow = room ? box.y + box.height + room.down - below.edge : 0
    parts.push(`${estimate(above, beyondAbove)} ${noun} above, ${estimate(below, beyondBelow)} below`)
  } else if (elements > 0) {
    parts.push(`${elements} hidden interactive elements`)
  } else if (room && (room.up > 1 || room.down > 1)) {
    parts.push(
      `more ${[room.up > 1 ? 'above' : '', room.down > 1 ? 'below' : ''].filter(Boolean).join(' and ')}`,
    )
  }
  if (room && (room.left > 1 || room.right > 1)) {
    const sides = [room.left > 1 ? 'left' : '', room.right > 1 ? 'right' : ''].filter(Boolean)
    parts.push(`more to the ${sides.join(' and ')}`)
  }
  return parts.join('; ')
}
