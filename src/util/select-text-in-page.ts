/**
 * The page function behind `select_text`, shared by the action and the
 * Playwright export (which passes its source to `evaluate`): self-contained,
 * it uses nothing but the DOM.
 *
 * Selects as a person's drag across text would: the first visible
 * occurrence, matched with whitespace folded (so across `<b>`, `<i>` and line
 * breaks), in the page's text or inside a field or editor, so that a page's
 * 'highlight', 'bold' or 'copy' finds the selection it expects.
 */

export interface Selected {
  text?: string
  error?: string
}

/** Runs in the page: `root` is the element to look in (the body when none was named). */
export function selectTextInPage(root: Element, wanted: string): Selected {
  const fold = (text: string) => text.replace(/\s+/g, ' ')
  const needle = fold(wanted).trim()
  if (!needle) return { error: 'there is no text to select' }
  const find = (haystack: string) => {
    const exact = haystack.indexOf(needle)
    return exact >= 0 ? exact : haystack.toLowerCase().indexOf(needle.toLowerCase())
  }
  const field = root instanceof HTMLTextAreaElement || root instanceof HTMLInputElement ? root : undefined
  if (field) {
    const value = field.value
    // Folding keeps one character per character, so an index in the folded value is one in the value.
    const at = find(value.replace(/\s/g, ' '))
    if (at < 0) return { error: 'the field does not hold it' }
    field.focus()
    field.setSelectionRange(at, at + needle.length)
    field.dispatchEvent(new Event('select', { bubbles: true }))
    return { text: value.slice(at, at + needle.length) }
  }
  // The visible text, folded, with where each of its characters came from.
  let text = ''
  const origins: Array<[Text, number]> = []
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT)
  let lastNode: Text | undefined
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node instanceof HTMLBRElement && lastNode) {
      if (!text.endsWith(' ')) {
        text += ' '
        origins.push([lastNode, lastNode.length])
      }
      continue
    }
    if (!(node instanceof Text)) continue
    const parent = node.parentElement
    if (!parent?.checkVisibility({ visibilityProperty: true })) continue
    const data = node.data
    for (let i = 0; i < data.length; i++) {
      const space = /\s/.test(data.charAt(i))
      if (space && (text.endsWith(' ') || text === '')) continue
      text += space ? ' ' : data.charAt(i)
      origins.push([node, i])
    }
    lastNode = node
  }
  const at = find(text)
  if (at < 0) return { error: 'it is not in the visible text' }
  const [startNode, startOffset] = origins[at] ?? []
  const [endNode, endOffset] = origins[at + needle.length - 1] ?? []
  if (!startNode || !endNode || startOffset === undefined || endOffset === undefined)
    return { error: 'it is not in the visible text' }
  const editor = startNode.parentElement?.closest('[contenteditable]:not([contenteditable=false])')
  if (editor instanceof HTMLElement) editor.focus()
  const range = document.createRange()
  range.setStart(startNode, startOffset)
  range.setEnd(endNode, Math.min(endNode.length, endOffset + 1))
  const selection = getSelection()
  if (!selection) return { error: 'the page has no selection' }
  selection.removeAllRanges()
  selection.addRange(range)
  // Pages that show a toolbar for a selection open it on the mouseup that ends a drag.
  const box = range.getBoundingClientRect()
  ;(endNode.parentElement ?? root).dispatchEvent(
    new MouseEvent('mouseup', { bubbles: true, clientX: box.right, clientY: box.bottom, view: window }),
  )
  return { text: selection.toString() }
}
