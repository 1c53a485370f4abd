import type { RefHistory } from './ref-history.ts'
import { baseRef, type RefEntry } from './stable-refs.ts'
import { actionable } from './view-render.ts'
import { textWithin, type ViewNode, type ViewTree } from './view-tree.ts'

/**
 * Gives every reachable node of a capture its stable ref (the scheme is
 * written down in docs/page-view.md):
 *
 * 1. An element the history already knows (same DOM node: the scan's id, or
 *    Playwright's aria ref, in the same document) keeps its ref, whatever its
 *    label, state or place.
 * 2. Otherwise its ref is derived from what the model sees: role and name,
 *    and for duplicates the nearest context that tells them apart (the named
 *    row, list item, card, form or dialog around it). A key that names one
 *    element only may take over the ref an earlier element with the same key
 *    had, so a re-rendered row's button keeps its ref.
 * 3. Where neither identity nor a distinguishing context exists, the element
 *    gets a ref never handed out before: an old ref is never reused for it.
 */

/** Roles whose text cannot identify them: a value the user changes, or the decoration a styled checkbox draws (`✔`). */
const unnamedByText = new Set([
  'textbox',
  'searchbox',
  'combobox',
  'spinbutton',
  'slider',
  'checkbox',
  'radio',
  'switch',
  'menuitemcheckbox',
  'menuitemradio',
])

/** How many containers up a duplicate looks for the context that tells it apart. */
const maxContextDepth = 6

interface Candidate {
  node: ViewNode
  role: string
  /** `role\0name`, or `role\0~text around it` for nameless elements. */
  baseKey: string
  /** The labels of the containers read so far, nearest first. */
  contexts: string[]
  /** How far up `contexts` has read. */
  climb: { child: ViewNode; up: ViewNode | undefined }
  /** The model may act on it (see `actionable`). */
  acts: boolean
  key: string
  unique: boolean
  identities: string[]
  name: string
}

/**
 * `everything` also gives refs to what cannot be acted on (a paragraph, a list
 * item), which only `find` and a stale ref's second look need; the page view
 * shows refs of actionable elements only, and skipping the rest keeps its
 * build fast (Playwright gives a ref to every visible element).
 */
export function assignRefs(
  tree: ViewTree,
  history: RefHistory,
  everything: boolean,
  attribute: string,
): RefEntry[] {
  const candidates = collect(tree, everything)
  distinguish(candidates)

  // Read only when some ref may follow its key (most captures carry every ref by identity).
  let present: Set<string> | undefined
  const presentNow = (): Set<string> => {
    present ??= presentIdentities(tree)
    return present
  }
  const claimed = new Map<string, Candidate>()
  const refOf = new Map<Candidate, string>()
  const carried = new Set<Candidate>()
  // 1. Identity first, in document order.
  for (const candidate of candidates) {
    for (const identity of candidate.identities) {
      const ref = history.holderOf(identity)
      if (ref !== undefined && !claimed.has(ref)) {
        claimed.set(ref, candidate)
        refOf.set(candidate, ref)
        carried.add(candidate)
        break
      }
    }
  }
  // 2. Then the derived key, and 3. a fresh ref where the key cannot vouch for the element.
  for (const candidate of candidates) {
    if (refOf.has(candidate)) continue
    const base = baseRef(candidate.role, candidate.key)
    const before = history.issued(base)
    // A ref follows its key only once the element it named is gone from the
    // page (not merely left out of this capture: off screen, or no longer
    // clickable), so it never moves onto another element.
    const followable =
      candidate.unique &&
      (before === undefined ||
        (before.unique && before.key === candidate.key && !history.heldByAnyOf(base, presentNow())))
    const ref =
      followable && !claimed.has(base) ? base : before === undefined && !claimed.has(base) ? base : ''
    const chosen = ref || history.fresh(base)
    claimed.set(chosen, candidate)
    refOf.set(candidate, chosen)
  }

  const entries: RefEntry[] = []
  for (const candidate of candidates) {
    const ref = refOf.get(candidate)
    if (ref === undefined) continue
    const { node } = candidate
    node.ref = ref
    history.bind(
      ref,
      { key: candidate.key, unique: candidate.unique },
      candidate.identities,
      carried.has(candidate),
    )
    const target = node.tag
      ? { kind: 'tagged' as const, tag: node.tag, attribute, frameAriaRef: node.frame || undefined }
      : { kind: 'aria' as const, ariaRef: node.ariaRef ?? '' }
    // The field's kind travels with its ref: text typed into a password field is masked in events and prompts.
    const inputType = node.scan?.inputType
    entries.push({
      ref,
      role: node.role,
      name: candidate.name,
      key: candidate.key,
      target,
      ...(inputType ? { inputType } : {}),
      ...(node.scan?.onHover ? { onHover: true } : {}),
    })
  }
  return entries
}

function collect(tree: ViewTree, everything: boolean): Candidate[] {
  const candidates: Candidate[] = []
  const ancestors: ViewNode[] = []
  const visit = (node: ViewNode, claimed: boolean): void => {
    // What is leaving, or aria-hidden and not on screen to the pointer (a page behind its modal's backdrop),
    // is shown, never offered. aria-hidden is the page's claim; a link it left on screen is still a link.
    const hidden = claimed || node.source.ariaHidden === true
    const offered = !hidden || node.shownHidden === true
    const acts =
      offered && !node.leaving && (node.ariaRef !== undefined || node.tag !== undefined) && actionable(node)
    if (acts || (everything && offered && node.ariaRef)) {
      // A nameless element is known by its own text (Playwright leaves out names
      // its children print), else by the text around it.
      const own =
        node.name ||
        node.source.placeholder ||
        (node.tag ? (node.scan?.hint ?? '') : '') ||
        (unnamedByText.has(node.source.role) ? '' : (node.text ?? '')) ||
        textWithin(node.children)
      const parent = ancestors.at(-1)
      const key = own || `~${parent ? textWithin(parent.children, node) : ''}`
      const role = node.tag ? node.role : node.source.role
      candidates.push({
        node,
        role,
        baseKey: key,
        contexts: [],
        climb: { child: node, up: node.parent },
        key,
        unique: true,
        identities: identitiesOf(tree, node),
        name: own || node.scan?.hint || '',
        acts,
      })
    }
    ancestors.push(node)
    for (const child of node.children) if (typeof child !== 'string') visit(child, hidden)
    ancestors.pop()
  }
  for (const root of tree.roots) if (typeof root !== 'string') visit(root, false)
  return candidates
}

/** The identities of every element in the capture, candidate or not. */
function presentIdentities(tree: ViewTree): Set<string> {
  const present = new Set<string>()
  for (const nodes of tree.frames.values())
    for (const node of nodes) for (const identity of identitiesOf(tree, node)) present.add(identity)
  return present
}

/** Strings only this DOM node can have: its scan id and its aria ref, each within its document. */
function identitiesOf(tree: ViewTree, node: ViewNode): string[] {
  const document = tree.documents.get(node.frame)
  if (document === undefined) return []
  const identities: string[] = []
  if (node.scan?.id !== undefined) identities.push(`d:${document}:${node.scan.id}`)
  // A tag is made anew each capture; Playwright's ref stays with its element while its role and name do.
  if (node.ariaRef && !node.tag) identities.push(`a:${document}:${node.ariaRef}`)
  return identities
}

/**
 * Duplicates (same role and key) take the labels of the containers around
 * them, nearest first, until their keys differ; those that never differ are
 * not unique, and get refs that cannot follow them. Labels are read one level
 * at a time, only for the duplicates still alike (big pages have thousands).
 */
function distinguish(candidates: Candidate[]): void {
  const groups = new Map<string, Candidate[]>()
  for (const candidate of candidates) {
    // What cannot be acted on is never told apart from what can: both are
    // grouped apart, so a button's key does not depend on the paragraphs
    // captured with it.
    const id = `${candidate.acts ? 'a' : 'n'}\u0000${candidate.role}\u0000${candidate.baseKey}`
    const group = groups.get(id)
    if (group) group.push(candidate)
    else groups.set(id, [candidate])
  }
  for (const group of groups.values()) {
    if (group.length < 2) continue
    // Only what the view offers to act on is worth the climb; a duplicate
    // paragraph or list item just gets a ref that does not follow it.
    let pending = group.filter((member) => member.acts)
    for (const member of group) if (!member.acts) member.unique = false
    for (let depth = 1; depth <= maxContextDepth && pending.length > 0; depth++) {
      const counts = new Map<string, number>()
      for (const member of pending) {
        const label = nextLabel(member.climb, member.contexts.at(-1))
        if (label) member.contexts.push(label)
        member.key = [member.baseKey, ...member.contexts].join('\u0001')
        counts.set(member.key, (counts.get(member.key) ?? 0) + 1)
      }
      pending = pending.filter((member) => counts.get(member.key) !== 1)
    }
    for (const member of pending) member.unique = false
  }
}

/**
 * The context of an element as duplicates are told apart: the labels of the
 * containers around it, nearest first (at most `depth`), each with the
 * container it came from. Recordings describe an element by it, and find it
 * again by it, so a replay reads a page's context exactly as its refs do.
 */
export function contextOf(node: ViewNode, depth: number): { label: string; container: ViewNode }[] {
  const climb = { child: node, up: node.parent }
  const labels: { label: string; container: ViewNode }[] = []
  while (labels.length < depth) {
    const label = nextLabel(climb, labels.at(-1)?.label)
    if (!label) break
    labels.push({ label, container: climb.child })
  }
  return labels
}

/**
 * The label of the next container up that has one (its name, else its text
 * without the way down), moving the climb there; '' at the top.
 */
function nextLabel(
  climb: { child: ViewNode; up: ViewNode | undefined },
  previous: string | undefined,
): string {
  while (climb.up) {
    const up = climb.up
    const label = (up.name || textWithin(up.children, climb.child)).slice(0, 40)
    climb.child = up
    climb.up = up.parent
    if (label && label !== previous) return label
  }
  return ''
}
