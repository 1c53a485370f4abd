import type { RefHistory } from './ref-history.ts'
import { baseRef, type RefEntry } from './refs.ts'
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
  /** The nearest containers' labels, nearest first (empty labels left out). */
  contexts: string[]
  key: string
  unique: boolean
  identities: string[]
  name: string
}

export function assignRefs(tree: ViewTree, history: RefHistory): RefEntry[] {
  const candidates = collect(tree)
  distinguish(candidates)

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
    const followable =
      candidate.unique && (before === undefined || (before.unique && before.key === candidate.key))
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
      ? { kind: 'tagged' as const, tag: node.tag, frameAriaRef: node.frame || undefined }
      : { kind: 'aria' as const, ariaRef: node.ariaRef ?? '' }
    entries.push({ ref, role: node.role, name: candidate.name, key: candidate.key, target })
  }
  return entries
}

function collect(tree: ViewTree): Candidate[] {
  const candidates: Candidate[] = []
  const ancestors: ViewNode[] = []
  const visit = (node: ViewNode): void => {
    if (node.ariaRef || node.tag) {
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
        key,
        unique: true,
        identities: identitiesOf(tree, node),
        name: own || node.scan?.hint || '',
      })
    }
    ancestors.push(node)
    for (const child of node.children) if (typeof child !== 'string') visit(child)
    ancestors.pop()
  }
  for (const root of tree.roots) if (typeof root !== 'string') visit(root)
  return candidates
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
 * not unique, and get refs that cannot follow them.
 */
function distinguish(candidates: Candidate[]): void {
  const groups = new Map<string, Candidate[]>()
  for (const candidate of candidates) {
    const id = `${candidate.role}\u0000${candidate.baseKey}`
    const group = groups.get(id)
    if (group) group.push(candidate)
    else groups.set(id, [candidate])
  }
  for (const group of groups.values()) {
    if (group.length < 2) continue
    for (const member of group) member.contexts = contextsOf(member.node)
    let pending = group
    for (let depth = 1; depth <= maxContextDepth && pending.length > 0; depth++) {
      const counts = new Map<string, number>()
      const keyAt = (member: Candidate) => [member.baseKey, ...member.contexts.slice(0, depth)].join('\u0001')
      for (const member of pending) counts.set(keyAt(member), (counts.get(keyAt(member)) ?? 0) + 1)
      const next: Candidate[] = []
      for (const member of pending) {
        const key = keyAt(member)
        if (counts.get(key) === 1) member.key = key
        else next.push(member)
      }
      pending = next
    }
    for (const member of pending) {
      member.key = [member.baseKey, ...member.contexts].join('\u0001')
      member.unique = false
    }
  }
}

/** The labels of the containers around a node, nearest first: a container's name, else its text without the node. */
function contextsOf(node: ViewNode): string[] {
  const labels: string[] = []
  let child: ViewNode = node
  for (let up = node.parent; up && labels.length < maxContextDepth; up = up.parent) {
    const label = up.name || textWithin(up.children, child)
    if (label && labels.at(-1) !== label) labels.push(label)
    child = up
  }
  return labels
}
