import { lineBody } from './view-render.ts'
import type { ViewChild, ViewNode } from './view-tree.ts'

/**
 * `find`: the elements anywhere on the page whose name, text, value or hint
 * contains the text, in the page view's line syntax with their refs and where
 * they are relative to the screen.
 */

export interface FoundElements {
  lines: string[]
  total: number
}

export function findElements(
  roots: ViewChild[],
  text: string,
  viewportHeight: number,
  limit = 25,
): FoundElements {
  const needle = text.replace(/\s+/g, ' ').trim().toLowerCase()
  const lines: string[] = []
  let total = 0
  const visit = (node: ViewNode, insideMatch: boolean): void => {
    const own = [
      node.name,
      node.scan?.masked ? '' : (node.text ?? ''),
      node.source.placeholder ?? '',
      node.scan?.hint ?? '',
    ]
    const strings = node.children.filter((child): child is string => typeof child === 'string')
    const matchedOwn = own.some((value) => value.toLowerCase().includes(needle))
    const matchedText = strings.find((value) => value.replace(/\s+/g, ' ').toLowerCase().includes(needle))
    // Text drawn by descendants without refs of their own is the element's label too (an SVG node's text),
    // on an item: a container half the screen tall holds stray text (a hidden span the page measures with).
    const item = node.box !== undefined && node.box.height < viewportHeight / 2
    const matchedLabel =
      !matchedOwn && matchedText === undefined && node.ref !== undefined && !insideMatch && item
        ? unclaimedText(node).find((value) => value.replace(/\s+/g, ' ').toLowerCase().includes(needle))
        : undefined
    const shownText = matchedText ?? matchedLabel
    const matched = !insideMatch && node.ref !== undefined && (matchedOwn || shownText !== undefined)
    if (matched) {
      total++
      if (lines.length < limit) {
        let body = lineBody(node, true)
        if (!matchedOwn && shownText) body += ` — text: ${snippet(shownText, needle)}`
        lines.push(`- ${body} (${whereIs(node, viewportHeight)})`)
      }
    }
    // A match by its own name or text is what matches inside it again (a list item's link); one by the
    // text of its descendants lets those that have refs be found too.
    const byOwn = matched && (matchedOwn || matchedText !== undefined)
    for (const child of node.children) if (typeof child !== 'string') visit(child, insideMatch || byOwn)
  }
  for (const root of roots) if (typeof root !== 'string') visit(root, false)
  return { lines, total }
}

/** The texts of the descendants that have no ref, down to those that have one (theirs is their own). */
function unclaimedText(node: ViewNode): string[] {
  const texts: string[] = []
  const visit = (child: ViewChild): void => {
    if (texts.length >= 20) return
    if (typeof child === 'string') return void texts.push(child)
    if (child.ref !== undefined) return
    if (child.name) texts.push(child.name)
    else if (child.text && child.scan?.masked !== true) texts.push(child.text)
    for (const grandchild of child.children) visit(grandchild)
  }
  for (const child of node.children) if (typeof child !== 'string') visit(child)
  return texts
}

function snippet(text: string, needle: string): string {
  const flat = text.replace(/\s+/g, ' ')
  const at = flat.toLowerCase().indexOf(needle)
  const start = Math.max(0, at - 40)
  const end = Math.min(flat.length, at + needle.length + 40)
  return `${start > 0 ? '…' : ''}${flat.slice(start, end)}${end < flat.length ? '…' : ''}`
}

function whereIs(node: ViewNode, viewportHeight: number): string {
  const box = node.box
  if (!box || box.width === 0 || box.height === 0) return 'not visible'
  if (box.y + box.height <= 0) return `above the screen, ${(-box.y / viewportHeight).toFixed(1)} screens up`
  if (box.y >= viewportHeight)
    return `below the screen, ${((box.y - viewportHeight) / viewportHeight + 0.1).toFixed(1)} screens down`
  return 'on screen'
}
