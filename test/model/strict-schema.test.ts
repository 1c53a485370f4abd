import { describe, expect, test } from 'vitest'
import { strictOutputSchema } from '../../src/model/strict-schema.ts'

// The strict form of a caller's schema that OpenAI's structured outputs accept, and the way back.

describe('strictOutputSchema', () => {
  test('closes every object, requires every property, and makes an optional one nullable', () => {
    const strict = strictOutputSchema({
      type: 'object',
      properties: {
        title: { type: 'string', minLength: 1 },
        note: { type: 'string' },
        tags: {
          type: 'array',
          uniqueItems: true,
          items: { type: 'object', properties: { name: { type: 'string' } } },
        },
      },
      required: ['title'],
    })
    expect(strict?.schema).toEqual({
      type: 'object',
      properties: {
        title: { type: 'string' },
        note: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        tags: {
          anyOf: [
            {
              type: 'array',
              items: {
                type: 'object',
                properties: { name: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
                required: ['name'],
                additionalProperties: false,
              },
            },
            { type: 'null' },
          ],
        },
      },
      required: ['title', 'note', 'tags'],
      additionalProperties: false,
    })
  })

  test('restores the answer: a null that stands for an absent property goes, one the caller allowed stays', () => {
    const strict = strictOutputSchema({
      type: 'object',
      properties: {
        note: { type: 'string' },
        maybe: { type: ['string', 'null'] },
        items: { type: 'array', items: { type: 'object', properties: { stock: { type: 'integer' } } } },
      },
    })
    expect(strict?.restore({ note: null, maybe: null, items: [{ stock: null }, { stock: 2 }] })).toEqual({
      maybe: null,
      items: [{}, { stock: 2 }],
    })
  })

  test('makes $defs strict too', () => {
    const strict = strictOutputSchema({
      type: 'object',
      properties: { shared: { $ref: '#/$defs/Shared' } },
      required: ['shared'],
      $defs: { Shared: { type: 'object', properties: { a: { type: 'string' } } } },
    })
    expect(strict?.schema.$defs).toEqual({
      Shared: {
        type: 'object',
        properties: { a: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
        required: ['a'],
        additionalProperties: false,
      },
    })
  })

  test.each([
    [
      'an open map',
      { type: 'object', properties: { m: { type: 'object', additionalProperties: { type: 'number' } } } },
    ],
    ['a free-form object', { type: 'object', properties: { any: { type: 'object' } } }],
    ['oneOf', { type: 'object', properties: { v: { oneOf: [{ type: 'string' }, { type: 'number' }] } } }],
    ['a root that is not an object', { type: 'array', items: { type: 'string' } }],
  ])('has no strict form for %s', (_name, schema) => {
    expect(strictOutputSchema(schema)).toBeUndefined()
  })
})
