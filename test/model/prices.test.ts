import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { costOf, findPrice, loadPriceTable, PriceFileError } from '../../src/model/prices.ts'

const million = 1_000_000

describe('the price table', () => {
  test('a known model is priced from the shipped table, cached input at the cache-read price', () => {
    const table = loadPriceTable()
    expect(table.takenAt).toMatch(/^\d{4}-\d{2}-\d{2}$/)
    const price = findPrice('openai/gpt-4.1-mini', table)
    expect(price).toEqual({ input: 0.4, output: 1.6, cacheRead: 0.1 })
    // 1M input of which 400k cached, 100k output: 600k × 0.4 + 400k × 0.1 + 100k × 1.6 (per million).
    const cost = costOf(
      { inputTokens: million, outputTokens: 100_000, totalTokens: 1_100_000, cachedInputTokens: 400_000 },
      price,
    )
    expect(cost).toBeCloseTo(0.24 + 0.04 + 0.16, 10)
  })

  test('a dated snapshot is priced as its model; nothing looser matches', () => {
    const table = loadPriceTable()
    expect(findPrice('anthropic/claude-sonnet-4-5-20250929', table)).toEqual(
      findPrice('anthropic/claude-sonnet-4-5', table),
    )
    expect(findPrice('anthropic/claude-sonnet-4-5', table)?.cacheWrite).toBeGreaterThan(0)
    expect(findPrice('openai/gpt-4.1-mini-but-different', table)).toBeUndefined()
  })

  test('an unknown model costs null, never 0', () => {
    const table = loadPriceTable()
    const price = findPrice('ollama/qwen3:8b', table)
    expect(price).toBeUndefined()
    expect(costOf({ inputTokens: 10, outputTokens: 5, totalTokens: 15 }, price)).toBeNull()
  })

  test('an override file adds models and replaces shipped prices', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sextant-prices-'))
    const path = join(dir, 'prices.json')
    writeFileSync(
      path,
      JSON.stringify({
        models: {
          'ollama/qwen3:8b': { input: 0, output: 0 },
          'openai/gpt-4.1-mini': { input: 1, output: 2 },
        },
      }),
    )
    const table = loadPriceTable(path)
    expect(
      costOf({ inputTokens: 10, outputTokens: 5, totalTokens: 15 }, findPrice('ollama/qwen3:8b', table)),
    ).toBe(0)
    expect(findPrice('OpenAI/GPT-4.1-mini', table)).toEqual({ input: 1, output: 2 })
    expect(findPrice('anthropic/claude-haiku-4-5', table)).toBeDefined()
  })

  test('a bad override file is refused with its path and the problem', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sextant-prices-'))
    const path = join(dir, 'prices.json')
    writeFileSync(path, JSON.stringify({ models: { 'x/y': { input: -1 } } }))
    expect(() => loadPriceTable(path)).toThrow(PriceFileError)
    expect(() => loadPriceTable(path)).toThrow(/models\.x\/y\.input/)
    expect(() => loadPriceTable(join(dir, 'missing.json'))).toThrow(/cannot read .*missing\.json \(ENOENT\)/)
  })
})
