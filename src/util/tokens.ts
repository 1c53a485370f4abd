import { countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base'

/**
 * Special tokens (`<|endoftext|>`…) are plain text here: by default the
 * tokenizer throws on them, so any page or task that spells one would fail
 * to be counted. Built once: the options are read on every call.
 */
const asPlainText = { disallowedSpecial: new Set<string>() }

/**
 * Tokens in `text` by the o200k encoding (GPT-4o and later): the one count
 * the page view's cap, the observation event and compaction all use. For other
 * providers' models it is an estimate, but a far closer one than characters ÷ 4
 * (which undercounts CJK text and dense markup by up to 2×). Counting is exact
 * and fast enough to run on every prompt (about 40 ms for 100k tokens, see
 * bench/page-view.bench.ts).
 */
export function countTokens(text: string): number {
  return countO200k(text, asPlainText)
}

/**
 * Where a line may start a piece of its own: o200k splits text into pieces
 * before merging, and no piece runs on past a newline into a line that starts
 * (after horizontal spaces) with something other than a space, `\r`, `\n`,
 * unless that line starts with `/` (punctuation takes trailing `\n` and `/`).
 */
const startsPiece = /^(?!\/)[^\S\r\n]*\S/

/**
 * Counts text made of lines, as `countTokens(lines.join('\n'))` would, and
 * remembers each line's count: a page's views repeat most of their lines from
 * one step to the next. Lines that could share a piece with the line before
 * (see `startsPiece`) are counted together with it, so the sum stays exact.
 */
export class LineTokenCounter {
  readonly #counts = new Map<string, number>()
  readonly #maxLines: number

  constructor(maxLines = 20_000) {
    this.#maxLines = maxLines
  }

  count(lines: readonly string[]): number {
    let total = 0
    let unit: string | undefined
    for (const line of lines) {
      if (unit === undefined) unit = line
      else if (startsPiece.test(line)) {
        total += this.#countUnit(`${unit}\n`)
        unit = line
      } else unit = `${unit}\n${line}`
    }
    return unit === undefined ? 0 : total + this.#countUnit(unit)
  }

  #countUnit(unit: string): number {
    let tokens = this.#counts.get(unit)
    if (tokens === undefined) {
      tokens = countTokens(unit)
      if (this.#counts.size >= this.#maxLines) this.#counts.clear()
      this.#counts.set(unit, tokens)
    }
    return tokens
  }
}
