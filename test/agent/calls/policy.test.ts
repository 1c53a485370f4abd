import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { decide } from '../../../src/agent/calls/call-policy.ts'
import { defineTool } from '../../../src/tool.ts'

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

  test('a rule can match on the effect a tool declares, alone or with its name', () => {
    const click = defineTool({
      name: 'click',
      description: 'Click.',
      input: z.object({ ref: z.string() }),
      effect: 'destructive',
      execute: async () => ({ ok: true, text: '' }),
    })
    const find = defineTool({
      name: 'find',
      description: 'Find.',
      input: z.object({ text: z.string() }),
      effect: 'readOnly',
      execute: async () => ({ ok: true, text: '' }),
    })
    const rules = [
      { tool: 'find', effect: 'destructive' as const, decision: 'deny' as const },
      { effect: 'destructive' as const, decision: 'confirm' as const },
    ]
    expect(decide(rules, click, { ref: 'b1' })).toEqual({
      decision: 'confirm',
      reason: "This run's policy asks for confirmation before click.",
    })
    // A read-only tool, and a tool that declares no effect at all, are left to their own setting.
    expect(decide(rules, find, { text: 'x' })).toEqual({ decision: 'allow', reason: '' })
    expect(decide(rules, navigate, { url: 'x' }).decision).toBe('allow')
    expect(decide(rules, script, { script: '1' }).decision).toBe('confirm')
    expect(decide([{ effect: 'readOnly', decision: 'deny' }], find, { text: 'x' }).decision).toBe('deny')
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
