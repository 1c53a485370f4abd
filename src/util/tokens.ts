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
