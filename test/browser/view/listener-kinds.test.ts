import { expect, test } from 'vitest'
import { kindsByNode } from '../../../src/browser/view/listeners/listener-kinds.ts'

// The kinds the browser's listener list gives each node: hovering is one (a menu entry that opens its
// submenu), but it does not count toward the seven kinds that make a node a delegation root.

const listening = (node: number, ...types: string[]) => types.map((type) => ({ type, backendNodeId: node }))

test('mouseenter, mouseover and pointerenter are a hover', () => {
  const kinds = kindsByNode([
    ...listening(1, 'mouseenter'),
    ...listening(2, 'mouseover', 'click'),
    ...listening(3, 'pointerenter'),
  ])
  expect(kinds.get(1)).toEqual(['hover'])
  expect(kinds.get(2)).toEqual(['hover', 'click'])
  expect(kinds.get(3)).toEqual(['hover'])
})

test('a node with six other kinds and a hover is not a delegation root; seven others make one', () => {
  const six = ['click', 'dblclick', 'contextmenu', 'keydown', 'dragstart', 'drop']
  const kinds = kindsByNode([...listening(1, ...six, 'mouseenter'), ...listening(2, ...six, 'mousedown')])
  expect(kinds.get(1)).not.toContain('root')
  expect(kinds.get(2)?.[0]).toBe('root')
})
