import type { Page } from 'playwright-core'

/**
 * The shape of Playwright's AI snapshot as JSON (`page.ariaSnapshotJSON({ mode:
 * 'ai', boxes: true })`): the same tree `page.ariaSnapshot()` renders as YAML,
 * with a ref for every element Playwright can act on and a box per element.
 */

export interface Box {
  x: number
  y: number
  width: number
  height: number
}

export interface AriaNode {
  role: string
  name?: string
  /** The only child when it is text, or an input's value. */
  text?: string
  children?: (AriaNode | string)[]
  ref?: string
  cursor?: 'pointer'
  box?: Box
  checked?: boolean | 'mixed'
  disabled?: boolean
  expanded?: boolean
  active?: boolean
  invalid?: boolean | string
  level?: number
  pressed?: boolean | 'mixed'
  selected?: boolean
  url?: string
  placeholder?: string
  ariaHidden?: boolean
}

function isAriaNode(value: unknown): value is AriaNode {
  return typeof value === 'object' && value !== null && typeof (value as { role?: unknown }).role === 'string'
}

/** Takes the snapshot; bounded so a page that does not answer cannot stall a step. */
export async function takeAriaSnapshot(
  page: Page,
  signal: AbortSignal,
  timeoutMs = 8000,
): Promise<AriaNode[]> {
  const json = await page.ariaSnapshotJSON({ mode: 'ai', boxes: true, timeout: timeoutMs, signal })
  const roots = Array.isArray(json) ? json : [json]
  return roots.filter(isAriaNode)
}

export function boxKey(box: Box): string {
  return `${box.x},${box.y},${box.width},${box.height}`
}
