import type { Box } from '../aria-snapshot.ts'
import type { ViewChild, ViewNode } from '../view-tree.ts'
import { describeHidden, itemNouns, type Measured, namedPanels } from './offscreen-summary.ts'

/**
 * What of the tree is on screen, clipped by the screen and by every container
 * that scrolls its own content (a listbox's viewport, a grid's body): an
 * option scrolled out of its list is off screen exactly as a paragraph below
 * the window is. What is off screen is summarised the same way for both: how
 * much lies on each side, its headings, and for a scrolling container the
 * names of the items nearest its edges, so the view can say what scrolling
 * the window or the container would show.
 */

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
  // Per viewport held beside its items (see `viewportAmong`), the items it scrolls.
  const adopted = new Map<ViewNode, ViewNode[]>()
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
    const viewport = viewportAmong(node.children)
    let any = self
    for (const child of node.children) {
      if (typeof child === 'string') continue
      let shown: boolean
      if (viewport && clippedBy(child, viewport.box)) {
        const items = adopted.get(viewport.node)
        if (items) items.push(child)
        else adopted.set(viewport.node, [child])
        shown = measure(child, intersection(childClip, viewport.box), childScreen, self, viewport.node)
      } else shown = measure(child, childClip, childScreen, self, childScroller)
      if (shown) any = true
    }
    measured.visible.set(node, { self, any })
    return any
  }
  for (const root of roots) if (typeof root !== 'string') measure(root, screen, screen, true, undefined)
  let named = 0
  for (const scroller of scrollers) {
    const shown = measured.visible.get(scroller)?.self === true
    const said = describeHidden(
      scroller,
      adopted.get(scroller) ?? [],
      measured,
      actionable,
      shown && named < namedPanels,
    )
    if (said && shown) named++
    if (said) measured.hidden.set(scroller, said)
  }
  return measured
}

/**
 * A scrolling viewport the tree holds beside the items it scrolls, not around them: a scroller with no
 * role of its own (Radix Select's `role="presentation"` viewport) is left out of the snapshot, its
 * options are lifted into the listbox, and the scan's node for it is placed among them by reading order.
 */
function viewportAmong(children: ViewChild[]): { node: ViewNode; box: Box } | undefined {
  for (const child of children) {
    if (typeof child === 'string' || child.tag === undefined || !child.scan?.scrollable) continue
    const { box } = child
    if (!box || box.width <= 0 || box.height <= 0) continue
    // Holding items of its own, it is not a stranger to them: its subtree is clipped as any scroller's.
    if (child.children.some((inner) => typeof inner !== 'string' && clippable(inner))) continue
    return { node: child, box }
  }
  return undefined
}

/** Items (and groups of them) a list's viewport scrolls; the list's other parts (scroll buttons, a filter box) it does not. */
function clippable(node: ViewNode): boolean {
  return itemNouns[node.role] !== undefined || node.role === 'group'
}

/** An item of the viewport's list: it lies in the viewport's column, wherever its scroll put it. */
function clippedBy(node: ViewNode, viewport: Box): boolean {
  const { box } = node
  if (!clippable(node) || !box || box.width <= 0 || box.height <= 0) return false
  return box.x >= viewport.x - 1 && box.x + box.width <= viewport.x + viewport.width + 1
}
