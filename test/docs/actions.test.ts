import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { actionList, actionRegistry } from '../../src/agent/tools/actions.ts'
import { buildToolRegistry } from '../../src/agent/tools/registry.ts'
import { browserTools } from '../../src/browser/actions/browser-actions.ts'
import type { BrowserToolSurface } from '../../src/browser/session/tool-surface.ts'
import type { ActionDescriptor } from '../../src/recording/action-descriptor.ts'

// An action is its file plus one registration (agent/tools/actions.ts): what the rest of Sextant needs
// of it is its descriptor, and docs/actions.md is held to the registry here.

const doc = readFileSync(join(import.meta.dirname, '../../docs/actions.md'), 'utf8')

/** docs/actions.md's table as the registry writes it. */
function expectedTable(): string {
  const rows = actionList.map(
    (action) => `| \`${action.name}\` | ${action.docs.input} | ${action.docs.does} |`,
  )
  return ['| action | input | does |', '|---|---|---|', ...rows].join('\n')
}

/** Every action a run can be offered, built with every option that adds one. */
function allTools() {
  // Building the tools reads nothing of the session: each reads it only when called.
  const session = {} as BrowserToolSurface
  return buildToolRegistry(browserTools(session), {
    vision: true,
    askUser: async () => '',
    handover: { maxHandovers: 3 } as never,
    subAgents: { max: 2 },
  })
}

describe('action descriptors', () => {
  test('every tool a run can be offered has a descriptor, and every descriptor a tool', () => {
    const tools = allTools()
    expect([...tools.keys()].sort()).toEqual(actionList.map((action) => action.name).sort())
    for (const [name, tool] of tools) {
      const action = actionRegistry.get(name) as ActionDescriptor
      expect(tool.effect ?? null, name).toBe(action.effect)
      // A tool may add to its descriptor's line (hand_over its cap); dispatch_agent's says how many it may start.
      if (name !== 'dispatch_agent') expect(tool.description.startsWith(action.description), name).toBe(true)
    }
  })

  test('every descriptor fills every field', () => {
    for (const action of actionList) {
      expect(action.name, JSON.stringify(action)).toMatch(/^[a-z][a-z0-9_]*$/)
      expect(action.description.length, action.name).toBeGreaterThan(10)
      expect('effect' in action, action.name).toBe(true)
      expect(action.docs.input, action.name).toMatch(/^`\{.*\}`$/)
      expect(action.docs.does.length, action.name).toBeGreaterThan(5)
      expect(['observes', 'waits', 'changes'], action.name).toContain(action.stuck)
      expect(['required', 'optional', 'none'], action.name).toContain(action.record.element)
      expect(typeof action.record.outcome, action.name).toBe('boolean')
      expect(typeof action.playwright, action.name).toBe('function')
    }
  })

  test("docs/actions.md's table is the registry's, row for row", () => {
    const start = doc.indexOf('| action | input | does |')
    const table = doc.slice(start).split('\n\n')[0]
    expect(table).toBe(expectedTable())
  })
})
