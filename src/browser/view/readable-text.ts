import type { ViewChild, ViewNode } from './view-tree.ts'

/**
 * `read_page`: the page's text as Markdown (headings, paragraphs, lists,
 * tables), for reading rather than acting, built from the same snapshot.
 */

const blockRoles = new Set([
  'heading',
  'paragraph',
  'list',
  'listitem',
  'table',
  'grid',
  'row',
  'rowgroup',
  'blockquote',
  'article',
  'main',
  'navigation',
  'banner',
  'contentinfo',
  'complementary',
  'region',
  'form',
  'group',
  'figure',
  'separator',
  'dialog',
  'alertdialog',
  'document',
  'iframe',
  'list',
  'definition',
  'term',
])
const skippedRoles = new Set([
  'combobox',
  'listbox',
  'textbox',
  'searchbox',
  'slider',
  'spinbutton',
  'option',
])

export function readableText(roots: ViewChild[]): string {
  const blocks: string[] = []
  const hasBlock = new Map<ViewNode, boolean>()
  const isBlock = (node: ViewNode): boolean => {
    const known = hasBlock.get(node)
    if (known !== undefined) return known
    const result =
      blockRoles.has(node.role) || node.children.some((child) => typeof child !== 'string' && isBlock(child))
    hasBlock.set(node, result)
    return result
  }
  const inline = (children: ViewChild[], self?: ViewNode): string => {
    const parts: string[] = []
    if (self && self.children.length === 0) parts.push(self.text ?? self.name)
    for (const child of children) {
      if (typeof child === 'string') parts.push(child)
      else if (!skippedRoles.has(child.role)) {
        parts.push(
          child.role === 'img' ? (child.name ? `[image: ${child.name}]` : '') : inline(child.children, child),
        )
      }
    }
    return parts.join(' ').replace(/\s+/g, ' ').trim()
  }
  const table = (node: ViewNode): void => {
    const rows: string[][] = []
    const collect = (current: ViewNode): void => {
      for (const child of current.children) {
        if (typeof child === 'string') continue
        if (child.role === 'row') {
          rows.push(
            child.children.flatMap((cell) =>
              typeof cell === 'string' ? [] : [inline(cell.children, cell).replace(/\|/g, '\\|')],
            ),
          )
        } else collect(child)
      }
    }
    collect(node)
    const [head, ...body] = rows
    if (!head) return
    const width = Math.max(...rows.map((row) => row.length))
    const line = (row: string[]) => `| ${Array.from({ length: width }, (_, i) => row[i] ?? '').join(' | ')} |`
    blocks.push([line(head), line(Array(width).fill('---')), ...body.map(line)].join('\n'))
  }
  const block = (node: ViewNode, listDepth: number): void => {
    if (skippedRoles.has(node.role)) return
    if (node.role === 'heading') {
      const text = inline(node.children, node) || node.name
      if (text) blocks.push(`${'#'.repeat(Math.min(6, node.source.level ?? 2))} ${text}`)
      return
    }
    if (node.role === 'table' || node.role === 'grid') {
      table(node)
      return
    }
    if (node.role === 'listitem') {
      const text: string[] = []
      const nested: ViewNode[] = []
      for (const child of node.children) {
        if (
          typeof child !== 'string' &&
          (child.role === 'list' || (isBlock(child) && child.role !== 'paragraph'))
        ) {
          nested.push(child)
        } else text.push(typeof child === 'string' ? child : inline(child.children, child))
      }
      const own = (text.join(' ') || (node.children.length === 0 ? (node.text ?? '') : ''))
        .replace(/\s+/g, ' ')
        .trim()
      if (own) blocks.push(`${'  '.repeat(listDepth)}- ${own}`)
      for (const child of nested) block(child, listDepth + 1)
      return
    }
    if (!isBlock(node) || node.role === 'paragraph') {
      const text = inline(node.children, node)
      if (text) blocks.push(text)
      return
    }
    let buffer: ViewChild[] = []
    const flush = () => {
      const text = inline(buffer)
      if (text) blocks.push(text)
      buffer = []
    }
    if (node.text) blocks.push(node.text)
    for (const child of node.children) {
      if (typeof child === 'string' || !isBlock(child)) buffer.push(child)
      else {
        flush()
        block(child, node.role === 'list' ? listDepth : 0)
      }
    }
    flush()
  }
  for (const root of roots) {
    if (typeof root === 'string') blocks.push(root)
    else block(root, 0)
  }
  return blocks.join('\n\n').replace(/\n{3,}/g, '\n\n')
}
