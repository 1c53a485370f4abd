import { describe, expect, test } from 'vitest'
import { extractJsonObject, parsePartialJson } from '../../../src/agent/output/partial-json.ts'

describe('parsePartialJson', () => {
  test('returns the strings written so far', () => {
    expect(parsePartialJson('{"memory": "Searched for sext')).toEqual({ memory: 'Searched for sext' })
    expect(parsePartialJson('{"a": "x", "b": {"c": [1, 2')).toEqual({ a: 'x', b: { c: [1, 2] } })
  })

  test('drops a key whose value has not started, and half-written literals', () => {
    expect(parsePartialJson('{"a": "x", "b": ')).toEqual({ a: 'x' })
    expect(parsePartialJson('{"a": tru')).toEqual({})
    expect(parsePartialJson('{"a')).toEqual({})
  })

  test('decodes escapes, and stops before a half-written one', () => {
    expect(parsePartialJson('{"a": "line\\nnext \\u00e9"}')).toEqual({ a: 'line\nnext é' })
    expect(parsePartialJson('{"a": "quote \\')).toEqual({ a: 'quote ' })
  })

  test('complete documents parse as JSON.parse would', () => {
    const document = { a: [1, { b: null, c: false }], d: -1.5e3, e: 'x' }
    expect(parsePartialJson(JSON.stringify(document))).toEqual(document)
  })

  test('never throws on garbage', () => {
    expect(parsePartialJson('}{nonsense')).toBeUndefined()
  })
})

describe('extractJsonObject', () => {
  test('finds a fenced object, then a bare one, inside prose', () => {
    expect(extractJsonObject('Here:\n```json\n{"a": {"b": "}"}}\n```\nthanks')).toEqual({ a: { b: '}' } })
    expect(extractJsonObject('I will click {not json} then {"click": {"ref": "b1"}} ok')).toEqual({
      click: { ref: 'b1' },
    })
    expect(extractJsonObject('no json here')).toBeUndefined()
  })
})
