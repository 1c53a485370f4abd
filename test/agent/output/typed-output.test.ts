import { Ajv2020 } from 'ajv/dist/2020.js'
import { describe, expect, expectTypeOf, test } from 'vitest'
import { z } from 'zod'
import { runAgent } from '../../../src/agent/loop.ts'
import { agentOutputJsonSchema } from '../../../src/agent/output/output.ts'
import { OutputSchemaError, resolveOutput } from '../../../src/agent/output/output-schema.ts'
import type { RunSummary } from '../../../src/agent/run/run-options.ts'
import { createDoneTool } from '../../../src/agent/tools/done.ts'
import { agentOutput, scriptedModel } from '../../support/models/scripted-model.ts'
import { collect, doneOf, ofType } from '../../support/run.ts'

const Flights = z.array(z.object({ airline: z.string(), price: z.number().min(0), departs: z.string() }))
const valid = [{ airline: 'Kestrel Air', price: 89, departs: '07:10' }]
const finish = (data: unknown, success = true) =>
  agentOutput({ done: { text: 'Found them.', success, data } })

describe('a run with an output schema', () => {
  test('the model reads why its data does not match, tries again, and done carries exactly the valid data', async () => {
    const model = scriptedModel([
      { output: finish([{ airline: 'Kestrel Air', price: '89 EUR' }]) },
      { output: finish(valid) },
    ])
    const events = await collect({ task: 'Five cheapest flights', model, browser: null, output: Flights })
    const [rejected, accepted] = ofType(events, 'tool_call_result')
    expect(rejected).toMatchObject({ ok: false })
    expect(rejected?.result).toMatch(/does not match the output schema.*price.*departs/s)
    expect(accepted).toMatchObject({ ok: true })
    expect(model.prompts()[1]).toContain('does not match the output schema')
    expect(doneOf(events)).toMatchObject({ reason: 'model_stop', result: { success: true, data: valid } })
  })

  test('the model is shown the schema in done', async () => {
    const model = scriptedModel([{ output: finish(valid) }])
    await collect({ task: 't', model, browser: null, output: Flights })
    const tools = JSON.stringify(model.doStreamCalls[0]?.tools)
    expect(tools).toContain('"airline"')
    expect(tools).toContain('read by the program that started the run')
  })

  test('after three mismatches the run ends error, naming what did not match', async () => {
    const wrong = finish({ airline: 'x' })
    const model = scriptedModel([{ output: wrong }, { output: wrong }, { output: wrong }, { output: wrong }])
    const events = await collect({ task: 't', model, browser: null, output: Flights })
    const done = doneOf(events)
    expect(done.reason).toBe('error')
    expect(done.result.text).toMatch(/did not match the output schema after 3 attempts: .*expected array/s)
    expect(done.result.data).toBeUndefined()
    expect(model.remaining()).toBe(1)
  })

  test('success: false may leave the data out', async () => {
    const model = scriptedModel([{ output: agentOutput({ done: { text: 'Site down.', success: false } }) }])
    const events = await collect({ task: 't', model, browser: null, output: Flights })
    expect(doneOf(events)).toMatchObject({
      reason: 'model_stop',
      result: { success: false, text: 'Site down.' },
    })
    expect(doneOf(events).result).not.toHaveProperty('data')
  })

  test('a JSON Schema works like a zod schema', async () => {
    const output = {
      type: 'object',
      properties: { total: { type: 'integer', minimum: 1 } },
      required: ['total'],
      additionalProperties: false,
    }
    const model = scriptedModel([{ output: finish({ total: 0 }) }, { output: finish({ total: 3 }) }])
    const events = await collect({ task: 't', model, browser: null, output })
    expect(ofType(events, 'tool_call_result')[0]?.result).toContain('data/total must be >= 1')
    expect(doneOf(events).result.data).toEqual({ total: 3 })
  })

  test('secret values are scrubbed from the data, whatever its keys are called', async () => {
    const model = scriptedModel([{ output: finish({ type: 'hunter2', note: 'pw hunter2' }) }])
    const run = runAgent({
      task: 't',
      model,
      browser: null,
      secrets: { pw: 'hunter2' },
      output: { type: 'object' },
    })
    const events = []
    let summary: RunSummary | undefined
    for (;;) {
      const next = await run.next()
      if (next.done) {
        summary = next.value
        break
      }
      events.push(next.value)
    }
    expect(JSON.stringify(doneOf(events))).not.toContain('hunter2')
    expect(JSON.stringify(summary)).not.toContain('hunter2')
    expect(doneOf(events).result.data).toEqual({
      type: '<secret>pw</secret>',
      note: 'pw <secret>pw</secret>',
    })
  })

  test('an unusable JSON Schema is refused before the run starts, naming the problem', () => {
    expect(() => resolveOutput({ type: 'object', properties: 5 })).toThrow(OutputSchemaError)
    expect(() => resolveOutput({ type: 'object', properties: 5 })).toThrow('output/properties must be object')
    expect(() => resolveOutput({ $ref: '#/$defs/missing' })).toThrow(/is not a reference inside the schema/)
  })

  test('runAgent types result.data as the zod schema says', () => {
    const typed = runAgent({ task: 't', model: scriptedModel([]), browser: null, output: Flights })
    expectTypeOf(typed).toEqualTypeOf<
      AsyncGenerator<
        import('../../../src/events/events.ts').AgentEvent,
        RunSummary<z.infer<typeof Flights>>,
        undefined
      >
    >()
    type Data =
      Awaited<ReturnType<typeof typed.next>> extends infer R
        ? R extends { done: true; value: infer S }
          ? S extends RunSummary<infer D>
            ? D
            : never
          : never
        : never
    expectTypeOf<Data>().toEqualTypeOf<{ airline: string; price: number; departs: string }[]>()
    const untyped = runAgent({
      task: 't',
      model: scriptedModel([]),
      browser: null,
      output: { type: 'object' },
    })
    expectTypeOf(untyped).toEqualTypeOf<
      AsyncGenerator<import('../../../src/events/events.ts').AgentEvent, RunSummary<unknown>, undefined>
    >()
    void typed.return(undefined as never)
    void untyped.return(undefined as never)
  })
})

describe('an output schema inside the step schema the model is given', () => {
  const stepWith = (data: unknown) => ({
    evaluation_previous_goal: '',
    memory: '',
    next_goal: '',
    action: { done: { text: 't', success: true, data } },
  })
  const checkerFor = (schema: Record<string, unknown>) => {
    const document = agentOutputJsonSchema([createDoneTool(resolveOutput(schema))])
    // strict: false lets the tool descriptions' keywords through; the references must resolve.
    return new Ajv2020({ strict: false }).compile(document)
  }

  test('keeps its $defs references resolvable, so the model is shown the shapes they name', () => {
    const check = checkerFor({
      type: 'object',
      $defs: { price: { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] } },
      properties: { items: { type: 'array', items: { $ref: '#/$defs/price' } } },
      required: ['items'],
    })
    expect(check(stepWith({ items: [{ amount: 3 }] }))).toBe(true)
    expect(check(stepWith({ items: [{ amount: 'three' }] }))).toBe(false)
  })

  test('a schema that refers to its own root (a tree) refers to itself, not to the step schema', () => {
    const check = checkerFor({
      type: 'object',
      properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#' } } },
      required: ['name'],
    })
    expect(check(stepWith({ name: 'a', children: [{ name: 'b', children: [] }] }))).toBe(true)
    expect(check(stepWith({ name: 'a', children: [{ children: [] }] }))).toBe(false)
  })
})
