import { describe, expect, test } from 'vitest'
import { countTokens, LineTokenCounter } from '../../src/util/tokens.ts'

/** A small seeded generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0
    return state / 2 ** 32
  }
}

// Pieces chosen to sit on the tokenizer's splitting rules: newlines, slashes
// and punctuation that swallow what follows, unicode spaces, CJK, numbers,
// contractions, special-token text.
const pieces = [
  '  - button "Save" [ref=b12]',
  '/',
  '//x',
  ' /path',
  ']',
  ':',
  '\r',
  '\n',
  '',
  ' ',
  '  ',
  '\t',
  '\u00a0',
  '\u2028',
  "it's",
  "Don'T",
  '123456',
  '東京都の天気',
  'text: … [42 more chars: read_page]',
  '<|endoftext|>',
  'ÉCOLE',
  '🙂',
  '-',
  '*',
]

describe('LineTokenCounter', () => {
  test('counts lines exactly as the tokenizer counts the joined text', () => {
    const next = random(7)
    for (let trial = 0; trial < 3000; trial++) {
      const lines: string[] = []
      const lineCount = Math.floor(next() * 6)
      for (let l = 0; l < lineCount; l++) {
        let line = ''
        const parts = Math.floor(next() * 4)
        for (let p = 0; p < parts; p++) line += pieces[Math.floor(next() * pieces.length)]
        lines.push(line)
      }
      const counter = new LineTokenCounter()
      const expected = countTokens(lines.join('\n'))
      expect({ lines, tokens: counter.count(lines) }).toEqual({ lines, tokens: expected })
      // A second count is served from what was remembered, and agrees.
      expect(counter.count(lines)).toBe(expected)
    }
  })

  test('forgets everything once it holds too many lines, and still counts right', () => {
    const counter = new LineTokenCounter(3)
    const lines = ['- a', '- b', '- c', '- d', '- e']
    expect(counter.count(lines)).toBe(countTokens(lines.join('\n')))
    expect(counter.count(lines.slice(2))).toBe(countTokens(lines.slice(2).join('\n')))
  })
})
