import { expect, test } from 'vitest'
import type { AriaNode } from '../../../src/browser/view/aria-snapshot.ts'
import { findElements } from '../../../src/browser/view/find-elements.ts'
import { buildViewTree, type ViewNode } from '../../../src/browser/view/view-tree.ts'

// `find` over a hand-built capture shaped as Node-RED's editor is: a scrolling canvas Playwright names
// with every node's label, an <svg> holding each node's group, whose label is a child without a ref.

function canvas(): ViewNode[] {
  const node = (ref: string, label: string, y: number): AriaNode => ({
    role: 'generic',
    ref,
    box: { x: 100, y, width: 130, height: 30 },
    children: [
      { role: 'generic', ref: `${ref}-button`, box: { x: 74, y, width: 32, height: 26 } },
      { role: 'generic', text: label, box: { x: 140, y, width: 40, height: 16 } },
    ],
  })
  const snapshot: AriaNode[] = [
    {
      role: 'generic',
      ref: 'page',
      box: { x: 0, y: 0, width: 1280, height: 720 },
      children: [
        { role: 'img', ref: 'svg', children: [node('tick', 'Tick', 100), node('show', 'Show', 200)] },
        // The scrolling chart after it, named by every label it scrolls.
        { role: 'generic', name: 'TickShow', ref: 'chart', box: { x: 0, y: 40, width: 900, height: 640 } },
        // A card whose title has no ref, with a link of the same words that has one.
        {
          role: 'generic',
          ref: 'card',
          box: { x: 950, y: 100, width: 300, height: 120 },
          children: [
            { role: 'generic', text: 'Show report', box: { x: 960, y: 110, width: 100, height: 16 } },
            {
              role: 'link',
              name: 'Show report',
              ref: 'open',
              box: { x: 960, y: 150, width: 100, height: 16 },
            },
          ],
        },
        // A span the page measures labels with, left in the document.
        { role: 'generic', text: 'Show', box: { x: 0, y: 700, width: 30, height: 16 } },
      ],
    },
  ]
  const tree = buildViewTree(snapshot)
  // Refs as a capture assigns them: each node's own.
  for (const each of tree.frames.get('') ?? []) if (each.ariaRef) each.ref = each.ariaRef
  return tree.roots.filter((root): root is ViewNode => typeof root !== 'string')
}

test("find on a drawn node's label answers with the node, whose label is a child without a ref", () => {
  const found = findElements(canvas(), 'Show', 720)
  expect(found.lines[0]).toBe('- generic [ref=show] — text: Show (on screen)')
  expect(found.lines).toContain('- generic "TickShow" [ref=chart] (on screen)')
  // Matched by its descendants' text, the card still lets its own link be found.
  expect(found.lines).toContain('- generic [ref=card] — text: Show report (on screen)')
  expect(found.lines).toContain('- link "Show report" [ref=open] (on screen)')
  // The page's stray measuring text is no label of the page-sized container around it.
  expect(found.lines.some((line) => line.includes('[ref=page]'))).toBe(false)
  expect(found.total).toBe(4)
})
