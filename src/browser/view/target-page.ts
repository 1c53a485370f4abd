/**
 * In-page halves of durable targets (see durable-targets.ts). Each function here is
 * sent to the page by `locator.evaluate`, so it must stand alone: no imports,
 * no closures over module scope.
 */

export interface InPageDescription {
  tag: string
  attributes: { id?: string; name?: string; 'data-testid'?: string; href?: string; label?: string }
  frame: string[]
}

/**
 * Describes the element: its tag, stable attributes and frames. (Its context
 * is read from the page view's tree, as the refs read it: `contextOf`.)
 */
export function describeElement(element: Element): InPageDescription {
  const clean = (text: string | null | undefined) => (text ?? '').replace(/\s+/g, ' ').trim()
  const cut = (text: string) => (text.length > 40 ? text.slice(0, 40).trim() : text)
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
  return { tag: element.tagName.toLowerCase(), attributes, frame }
}

/** The value a field holds, or its text for anything else. */
export function fieldValue(element: Element): string {
  if ('value' in element && typeof element.value === 'string') return element.value
  return (element.textContent ?? '').trim()
}

/** Whether `text` is on the page outside form fields (fields hold what was typed, not what it made). */
export function textOnPage(text: string): boolean {
  const wanted = text.replace(/\s+/g, ' ').trim()
  if (!wanted) return false
  return (document.body?.innerText ?? '').replace(/\s+/g, ' ').includes(wanted)
}
