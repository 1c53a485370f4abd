import { describe, expect, test } from 'vitest'
import { runAgent } from '../../../src/agent/loop.ts'
import { OutputSchemaError, resolveOutput } from '../../../src/agent/output/output-schema.ts'
import { maxDataDepth, maxSchemaDepth } from '../../../src/agent/output/schema-bounds.ts'
import { agentOutput, scriptedModel } from '../../support/models/scripted-model.ts'

// A caller's output schema is bounded before anything recursive reads it: no recursive $ref, no
// nesting past maxSchemaDepth. Before, {"$ref":"#"} was accepted and every later `done` failed with a
// stack overflow, and a schema 1,000 deep was a 500.

/** `{ items: { items: … } }`, `levels` objects deep. */
function nested(levels: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' }
  for (let i = 1; i < levels; i++) schema = { type: 'array', items: schema }
  return schema
}

describe('output schema bounds', () => {
  test.each([
    ['itself', { $ref: '#' }],
    ['an ancestor, in place', { type: 'object', allOf: [{ anyOf: [{ $ref: '#' }] }] }],
    [
      'each other',
      { $defs: { a: { $ref: '#/$defs/b' }, b: { not: { $ref: '#/$defs/a' } } }, $ref: '#/$defs/a' },
    ],
    ['an anchor around it', { $anchor: 'node', if: { $ref: '#node' } }],
  ])('a $ref that leads back to %s is refused, naming it', (_name, schema) => {
    expect(() => resolveOutput(schema)).toThrow(OutputSchemaError)
    expect(() => resolveOutput(schema)).toThrow(/^"output" has a recursive \$ref \(at /)
  })

  test('a tree (a $ref back through properties or items) is fine, and data deeper than the bound is refused', () => {
    const tree = resolveOutput({
      type: 'object',
      properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#' } } },
    })
    expect(tree.check({ name: 'a', children: [{ name: 'b', children: [] }] }).ok).toBe(true)
    let data: Record<string, unknown> = { name: 'leaf' }
    for (let i = 0; i < 5000; i++) data = { name: 'n', children: [data] }
    expect(tree.check(data)).toEqual({
      ok: false,
      problems: `data is nested deeper than ${maxDataDepth} levels`,
    })
  })

  test('a $ref to nothing in the schema, or $dynamicRef, is refused; one to a sibling definition is fine', () => {
    expect(() => resolveOutput({ $ref: 'https://example.com/s.json' })).toThrow(
      /is not a reference inside the schema/,
    )
    expect(() => resolveOutput({ $ref: '#/$defs/missing' })).toThrow(/is not a reference inside the schema/)
    expect(() => resolveOutput({ $dynamicRef: '#x' })).toThrow(/uses \$dynamicRef/)
    const fine = resolveOutput({
      $defs: { name: { type: 'string' } },
      type: 'object',
      properties: { first: { $ref: '#/$defs/name' }, last: { $ref: '#/$defs/name' } },
      // Data keywords may hold a `$ref` key: it is data, not a reference.
      default: { $ref: 'not a reference' },
    })
    expect(fine.check({ first: 'Ada', last: 'Lovelace' })).toEqual({
      ok: true,
      data: { first: 'Ada', last: 'Lovelace' },
    })
  })

  test(`a schema nested deeper than ${maxSchemaDepth} levels is refused; ${maxSchemaDepth} is fine`, () => {
    expect(() => resolveOutput(nested(maxSchemaDepth + 1))).toThrow(
      `"output" is nested deeper than ${maxSchemaDepth} levels of objects and arrays.`,
    )
    expect(() => resolveOutput(nested(1000))).toThrow(OutputSchemaError)
    // Far deeper than any recursion could take: the check walks with its own stack.
    expect(() => resolveOutput(nested(20_000))).toThrow(OutputSchemaError)
    let data: unknown = 'a'
    for (let i = 1; i < maxSchemaDepth; i++) data = [data]
    expect(resolveOutput(nested(maxSchemaDepth)).check(data)).toEqual({ ok: true, data })
  })

  test('the library throws before the run starts, and no model is asked', async () => {
    for (const output of [{ $ref: '#' }, nested(1000), { type: 'string', pattern: '(a)\\1' }]) {
      const model = scriptedModel([
        { output: agentOutput({ done: { text: 'x', success: true, data: 'x' } }) },
      ])
      const run = runAgent({ task: 't', model, browser: null, output })
      await expect(run.next()).rejects.toThrow(OutputSchemaError)
      expect(model.prompts()).toEqual([])
    }
  })
})
