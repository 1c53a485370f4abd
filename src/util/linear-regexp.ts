import { RE2JS } from 're2js'

/**
 * Callers' regular expressions (output-schema `pattern`s, eval checks) run
 * on RE2 (re2js, a pure-JavaScript port): matching takes time linear in the
 * text, whatever the pattern, so no pattern can hold the event loop (and with
 * it every run, stream and lease heartbeat of the server). The price: what
 * RE2 cannot run in linear time, backreferences and lookaround, is refused
 * when the pattern is given, naming it.
 */

/** What a pattern offers its callers: a search, like `RegExp.prototype.test` without state. */
export interface LinearRegExp {
  readonly source: string
  test(text: string): boolean
}

/** A pattern the linear-time engine cannot run (or that does not parse): the message names it. */
export class PatternError extends Error {
  override name = 'PatternError'
}

/** JavaScript flags RE2 takes; `g`, `y` and `d` only change state or results `test` does not use, and `u`/`v` is RE2's own reading. */
const flagBits: Record<string, number> = {
  i: RE2JS.CASE_INSENSITIVE,
  s: RE2JS.DOTALL,
  m: RE2JS.MULTILINE,
}

/** Compiles `source` (JavaScript syntax) for linear-time matching; throws PatternError when it cannot. */
export function linearRegExp(source: string, flags = ''): LinearRegExp {
  let bits = 0
  for (const flag of flags) bits |= flagBits[flag] ?? 0
  let compiled: RE2JS
  try {
    compiled = RE2JS.compile(RE2JS.translateRegExp(source), bits)
  } catch (error) {
    const why = error instanceof Error ? error.message.replace(/^error parsing regexp: /, '') : String(error)
    throw new PatternError(
      `The pattern ${JSON.stringify(source)} cannot be used: ${why}. Patterns run on a linear-time engine (RE2), without backreferences or lookaround.`,
    )
  }
  return { source, test: (text) => compiled.test(text) }
}
