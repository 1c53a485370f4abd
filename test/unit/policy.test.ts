import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { decide } from '../../src/agent/policy.ts'
import { defineTool } from '../../src/tool.ts'

const navigate = defineTool({
  name: 'navigate',
  description: 'Go to a URL.',
  input: z.object({ url: z.string() }),
  execute: async () => ({ ok: true, text: '' }),
})
const script = defineTool({
  name: 'execute_javascript',
  description: 'Run a script.',
  input: z.object({ script: z.string() }),
  requiresConfirmation: true,
  execute: async () => ({ ok: true, text: '' }),
})

describe('decide', () => {
  test("falls back to the tool's own requiresConfirmation", () => {
    expect(decide([], navigate, { url: 'x' }).decision).toBe('allow')
    expect(decide([], script, { script: '1' }).decision).toBe('confirm')
  })

  test('the first matching rule wins, by name, pattern, wildcard and input predicate', () => {
    const rules = [
      {
        tool: 'navigate',
        when: (input: unknown) => String((input as { url: string }).url).includes('bank'),
        decision: 'confirm' as const,
      },
      { tool: /^execute_/, decision: 'allow' as const },
      { tool: '*', decision: 'deny' as const, reason: 'read-only run' },
    ]
    expect(decide(rules, navigate, { url: 'https://bank.test' })).toMatchObject({ decision: 'confirm' })
    expect(decide(rules, navigate, { url: 'https://news.test' })).toEqual({
      decision: 'deny',
      reason: 'read-only run',
    })
    expect(decide(rules, script, { script: '1' }).decision).toBe('allow')
  })

  test('a tool may require confirmation only for some inputs', () => {
    const submit = defineTool({
      name: 'submit',
      description: 'x',
      input: z.object({ amount: z.number() }),
      requiresConfirmation: (input) => input.amount > 100,
      execute: async () => ({ ok: true, text: '' }),
    })
    expect(decide([], submit, { amount: 5 }).decision).toBe('allow')
    expect(decide([], submit, { amount: 500 }).decision).toBe('confirm')
  })
})
