import { expect, test } from 'vitest'
import { z } from 'zod'
import { buildToolRegistry } from '../../../src/agent/tools/registry.ts'
import { defineTool, ok } from '../../../src/tool.ts'

const pointTool = (name: string) =>
  defineTool({ name, description: name, input: z.object({}), execute: async () => ok(name) })

test('the coordinate actions are offered only when the model sees the screenshot', () => {
  const browserTools = ['click', 'click_at', 'drag_at', 'hover_at'].map(pointTool)
  expect([...buildToolRegistry(browserTools, {}).keys()]).toEqual(['click', 'wait', 'done'])
  expect([...buildToolRegistry(browserTools, { vision: true }).keys()]).toEqual([
    'click',
    'click_at',
    'drag_at',
    'hover_at',
    'wait',
    'done',
  ])
})
