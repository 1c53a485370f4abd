import { type AriaNode, type Box, boxKey } from './aria-snapshot.ts'
import type { ScanRecord, ScanResult } from './scan-records.ts'

/**
 * The snapshot as the page view works with it: boxes made absolute (iframe
 * content is offset by its iframe), each node knowing its frame, the page
 * scan's records laid onto their nodes, and a stable ref for every element
 * that can be acted on.
 */

export interface ViewNode {
  role: string
  name: string
  /** An input's value or the node's only text. */
  text?: string
  source: AriaNode
  /** Box relative to the top-level viewport. */
  box?: Box
  /** Box key as the node's own frame reports it, to match scan records. */
  frameBox?: string
  /** '' for the main frame, else the aria ref of the iframe element. */
  frame: string
  ariaRef?: string
  /** Set on the synthetic nodes built from tagged scan records. */
  tag?: string
  ref?: string
  scan?: ScanRecord
  /** Inert or fading out (see `ScanResult.leaving`): shown, never offered with a ref. */
  leaving?: boolean
  /** Inside an `aria-hidden` container, yet drawn and taking the pointer (see `ScanResult.shownHidden`). */
  shownHidden?: boolean
  /** Hidden until its row is hovered (see `ScanResult.concealed`): on screen wherever its row is. */
  concealed?: boolean
  /** The node it sits in (for the context that tells duplicates apart). */
  parent?: ViewNode
  children: ViewChild[]
}

export type ViewChild = ViewNode | string

/** The node that holds `ref`, in whichever frame. */
export function findNode(tree: ViewTree, ref: string): ViewNode | undefined {
  for (const nodes of tree.frames.values()) {
    const node = nodes.find((candidate) => candidate.ref === ref)
    if (node) return node
  }
  return undefined
}

export interface ViewTree {
  roots: ViewChild[]
  /** Nodes per frame ('' = main), in document order. */
  frames: Map<string, ViewNode[]>
  /** The iframe node of each child frame. */
  iframes: Map<string, ViewNode>
  /** The scanned frames' document ids: identities only hold within one document. */
  documents: Map<string, string>
}

export function buildViewTree(snapshot: AriaNode[]): ViewTree {
  const frames = new Map<string, ViewNode[]>([['', []]])
  const iframes = new Map<string, ViewNode>()
  const convert = (
    source: AriaNode,
    frame: string,
    offset: { x: number; y: number },
    parent: ViewNode | undefined,
  ): ViewNode => {
    const node: ViewNode = { role: source.role, name: source.name ?? '', source, frame, children: [] }
    if (parent) node.parent = parent
    if (source.text !== undefined) node.text = source.text
    if (source.ref) node.ariaRef = source.ref
    if (source.box) {
      node.frameBox = boxKey(source.box)
      node.box = { ...source.box, x: source.box.x + offset.x, y: source.box.y + offset.y }
    }
    frames.get(frame)?.push(node)
    let childFrame = frame
    let childOffset = offset
    if (source.role === 'iframe' && source.ref) {
      childFrame = source.ref
      childOffset = node.box ? { x: node.box.x, y: node.box.y } : offset
      iframes.set(source.ref, node)
      frames.set(source.ref, [])
    }
    for (const child of source.children ?? []) {
      node.children.push(typeof child === 'string' ? child : convert(child, childFrame, childOffset, node))
    }
    return node
  }
  const roots = snapshot.map((root) => convert(root, '', { x: 0, y: 0 }, undefined))
  return { roots, frames, iframes, documents: new Map() }
}

const expectedRoles: Record<string, string[]> = {
  a: ['link'],
  button: ['button'],
  input: ['textbox', 'searchbox', 'checkbox', 'radio', 'spinbutton', 'slider', 'button', 'combobox'],
  textarea: ['textbox'],
  select: ['combobox', 'listbox'],
  summary: ['generic', 'button'],
}

/**
 * Lays a frame's scan records onto its nodes. A clickable element with no
 * node of its own gets a synthetic node, reached through the mark the scan set.
 */
export function applyScan(tree: ViewTree, frame: string, scan: ScanResult): void {
  tree.documents.set(frame, scan.documentId)
  const nodes = tree.frames.get(frame) ?? []
  const byBox = new Map<string, ViewNode[]>()
  for (const node of nodes) {
    if (!node.frameBox) continue
    const list = byBox.get(node.frameBox)
    if (list) list.push(node)
    else byBox.set(node.frameBox, [node])
  }
  const offset = frame ? tree.iframes.get(frame)?.box : undefined
  for (const key of scan.leaving ?? []) for (const node of byBox.get(key) ?? []) node.leaving = true
  for (const key of scan.concealed ?? []) for (const node of byBox.get(key) ?? []) node.concealed = true
  for (const record of scan.records) {
    const candidates = byBox.get(record.box)
    // A hover-revealed element that is not drawn has no box: no node elsewhere may be taken for it.
    const unplaced = record.onHover === true && /(^|,)0,0$/.test(record.box)
    // One the snapshot names but gives no ref (it takes no pointer until hovered) is reached by its mark.
    const named =
      record.onHover && !unplaced ? candidates?.find((node) => !node.ariaRef && !node.tag) : undefined
    if (named && record.mark !== undefined && !candidates?.some((node) => node.ariaRef)) {
      record.tagged = record.mark
      named.tag = record.mark
      named.scan = record
      if (record.role) named.role = record.role
      continue
    }
    if (record.mark !== undefined && (unplaced || !candidates?.some((node) => node.ariaRef))) {
      record.tagged = record.mark
      addTaggedNode(tree, frame, record, byBox, offset)
      continue
    }
    if (!candidates) continue
    const expected = record.role ? [record.role] : (expectedRoles[record.tag] ?? [])
    let best: ViewNode | undefined
    let bestScore = -1
    for (const node of candidates) {
      const score = (expected.includes(node.role) ? 2 : 0) + (node.ariaRef ? 1 : 0)
      if (score >= bestScore) {
        best = node
        bestScore = score
      }
    }
    if (!best) continue
    best.scan = record
    if (record.editable && best.role === 'generic') best.role = 'textbox'
  }
  // After the records: a tagged element (a clickable span) in a stale aria-hidden menu is shown too.
  for (const key of scan.shownHidden ?? []) for (const node of byBox.get(key) ?? []) node.shownHidden = true
}

function addTaggedNode(
  tree: ViewTree,
  frame: string,
  record: ScanRecord,
  byBox: Map<string, ViewNode[]>,
  offset: Box | undefined,
): void {
  const [x = 0, y = 0, width = 0, height = 0] = record.box.split(',').map(Number)
  const name = record.text && record.text.length <= 80 ? record.text : ''
  const node: ViewNode = {
    role: record.role ?? (record.tag === 'img' ? 'img' : 'generic'),
    name,
    source: { role: 'generic' },
    frameBox: record.box,
    frame,
    tag: record.tagged,
    scan: record,
    children: [],
  }
  // One not drawn until its row is hovered has no box: it goes last in its row, where its row is.
  if (width > 0 || height > 0) node.box = { x: x + (offset?.x ?? 0), y: y + (offset?.y ?? 0), width, height }
  let parent: ViewNode | undefined
  for (const key of record.parents ?? []) {
    const found = byBox.get(key)
    if (found) {
      parent = found[found.length - 1]
      break
    }
  }
  if (parent?.text !== undefined && parent.children.length === 0) {
    parent.children.push(parent.text)
    delete parent.text
  }
  if (parent) node.parent = parent
  else if (frame) {
    const iframe = tree.iframes.get(frame)
    if (iframe) node.parent = iframe
  }
  const siblings = parent ? parent.children : frame ? (tree.iframes.get(frame)?.children ?? []) : tree.roots
  if (node.box) insertInReadingOrder(siblings, node.box, node)
  else siblings.push(node)
  tree.frames.get(frame)?.push(node)
  // A tagged element inside another (a card in a column that takes drops) goes under it: records come parents first.
  if (node.box && !byBox.has(record.box)) byBox.set(record.box, [node])
}

/** Before the first sibling that starts lower down, or on the same line further right. */
function insertInReadingOrder(siblings: ViewChild[], at: Box, node: ViewNode): void {
  const index = siblings.findIndex(
    (sibling) =>
      typeof sibling !== 'string' &&
      sibling.box !== undefined &&
      (sibling.box.y > at.y + 2 || (Math.abs(sibling.box.y - at.y) <= 2 && sibling.box.x > at.x)),
  )
  if (index < 0) siblings.push(node)
  else siblings.splice(index, 0, node)
}

/** The first `max` characters of the text inside `children`, leaving out `skip` (capped, so cheap). */
export function textWithin(children: ViewChild[], skip?: ViewNode, max = 40): string {
  let text = ''
  const visit = (child: ViewChild): void => {
    if (text.length >= max || child === skip) return
    // Each piece is cut first: a paragraph's text can run to many kilobytes.
    if (typeof child === 'string') text += ` ${child.slice(0, 80)}`
    else {
      if (child.name) text += ` ${child.name.slice(0, 80)}`
      else if (child.text && child.scan?.masked !== true) text += ` ${child.text.slice(0, 80)}`
      for (const grandchild of child.children) visit(grandchild)
    }
  }
  for (const child of children) visit(child)
  return text.replace(/\s+/g, ' ').trim().slice(0, max)
}
