/**
 * In-page halves of durable targets (see targets.ts). Each function here is
 * sent to the page by `locator.evaluate`, so it must stand alone: no imports,
 * no closures over module scope.
 */

export interface InPageDescription {
  tag: string
  attributes: { id?: string; name?: string; 'data-testid'?: string; href?: string; label?: string }
  /** Containers around the element, nearest first: role and label (name, else text without the element). */
  chain: { role: string; label: string }[]
  frame: string[]
}

/** Describes the element: its tag, stable attributes, its containers and its frames. */
export function describeElement(element: Element, maxChain: number): InPageDescription {
  const clean = (text: string | null | undefined) => (text ?? '').replace(/\s+/g, ' ').trim()
  const cut = (text: string) => (text.length > 40 ? text.slice(0, 40).trim() : text)
  const implicitRoles: Record<string, string> = {
    li: 'listitem',
    tr: 'row',
    article: 'article',
    form: 'form',
    dialog: 'dialog',
    fieldset: 'group',
    section: 'region',
  }
  const containerRoles = new Set([
    'listitem',
    'row',
    'article',
    'form',
    'dialog',
    'alertdialog',
    'group',
    'region',
  ])
  const roleOf = (node: Element): string =>
    node.getAttribute('role')?.split(' ')[0] ?? implicitRoles[node.tagName.toLowerCase()] ?? ''
  const nameOf = (node: Element): string => {
    const label = node.getAttribute('aria-label')
    if (label) return clean(label)
    const ids = node.getAttribute('aria-labelledby')
    if (ids) {
      const doc = node.ownerDocument
      return clean(
        ids
          .split(/\s+/)
          .map((id) => doc.getElementById(id)?.textContent ?? '')
          .join(' '),
      )
    }
    return ''
  }
  /** The container's text without the element's own, as the page view reads a context. */
  const textWithout = (container: Element, skip: Element): string => {
    const parts: string[] = []
    const walk = (node: Node) => {
      if (node === skip) return
      if (node.nodeType === 3) parts.push(node.textContent ?? '')
      else if (node.nodeType === 1) {
        const tag = (node as Element).tagName.toLowerCase()
        if (tag === 'script' || tag === 'style' || tag === 'template') return
        for (const child of node.childNodes) walk(child)
      }
    }
    walk(container)
    return clean(parts.join(' '))
  }

  const chain: { role: string; label: string }[] = []
  for (let up = element.parentElement; up && chain.length < maxChain; up = up.parentElement) {
    const role = roleOf(up)
    if (!containerRoles.has(role)) continue
    // A section is a region only when it is named; a nameless one is no context.
    const name = nameOf(up)
    if (role === 'region' && !name) continue
    const label = cut(name || textWithout(up, element))
    if (label && label !== chain.at(-1)?.label) chain.push({ role, label })
  }

  const attributes: InPageDescription['attributes'] = {}
  const id = element.getAttribute('id')
  // Ids a framework generates (react-select-3, :r1:, ember123) would not survive a reload.
  if (id && !/\d{2,}|^:|[:]/.test(id)) attributes.id = id
  const nameAttribute = element.getAttribute('name')
  if (nameAttribute) attributes.name = nameAttribute
  const testId = element.getAttribute('data-testid')
  if (testId) attributes['data-testid'] = testId
  const href = element.getAttribute('href')
  if (href && !href.startsWith('javascript:')) attributes.href = href
  const labels = (element as HTMLInputElement).labels
  if (labels && labels.length > 0) attributes.label = cut(clean(labels[0]?.textContent))

  const frame: string[] = []
  try {
    let view: Window | null = element.ownerDocument.defaultView
    for (; view && view !== view.parent; view = view.parent) {
      const holder = view.frameElement
      if (!holder) break
      frame.unshift(holder.getAttribute('name') || holder.getAttribute('src') || 'iframe')
    }
  } catch {
    // A cross-origin parent cannot be read: the path stops at what could be.
  }
  return { tag: element.tagName.toLowerCase(), attributes, chain, frame }
}

/** The value a field holds, or its text for anything else. */
export function fieldValue(element: Element): string {
  if ('value' in element && typeof element.value === 'string') return element.value
  return (element.textContent ?? '').trim()
}

/** Whether `text` is on the page outside form fields (fields hold what was typed, not what it made). */
export function textOnPage(root: Element, text: string): boolean {
  const wanted = text.replace(/\s+/g, ' ').trim()
  if (!wanted) return false
  return (root as HTMLElement).innerText.replace(/\s+/g, ' ').includes(wanted)
}
