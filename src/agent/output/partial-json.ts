/**
 * Parses the prefix of a JSON document that a model is still writing, so
 * reflection fields can stream to the caller before the tool call completes.
 * Unterminated strings yield what has arrived so far; anything unparseable
 * past that point is dropped. Never throws.
 */
export function parsePartialJson(text: string): unknown {
  const parser = { text, at: 0 }
  try {
    return parseValue(parser)
  } catch {
    return undefined
  }
}

interface Parser {
  text: string
  at: number
}

class Incomplete extends Error {}

function skipSpace(p: Parser) {
  while (p.at < p.text.length && /\s/.test(p.text.charAt(p.at))) p.at++
}

function parseValue(p: Parser): unknown {
  skipSpace(p)
  if (p.at >= p.text.length) throw new Incomplete()
  const char = p.text[p.at]
  if (char === '{') return parseObject(p)
  if (char === '[') return parseArray(p)
  if (char === '"') return parseString(p).value
  return parseLiteral(p)
}

function parseObject(p: Parser): Record<string, unknown> {
  const object: Record<string, unknown> = {}
  p.at++
  for (;;) {
    skipSpace(p)
    if (p.at >= p.text.length) return object
    if (p.text[p.at] === '}') {
      p.at++
      return object
    }
    if (p.text[p.at] === ',') {
      p.at++
      continue
    }
    const key = parseString(p)
    if (!key.complete) return object
    skipSpace(p)
    if (p.text[p.at] !== ':') return object
    p.at++
    try {
      object[key.value] = parseValue(p)
    } catch (error) {
      if (error instanceof Incomplete) return object
      throw error
    }
  }
}

function parseArray(p: Parser): unknown[] {
  const array: unknown[] = []
  p.at++
  for (;;) {
    skipSpace(p)
    if (p.at >= p.text.length) return array
    if (p.text[p.at] === ']') {
      p.at++
      return array
    }
    if (p.text[p.at] === ',') {
      p.at++
      continue
    }
    try {
      array.push(parseValue(p))
    } catch (error) {
      if (error instanceof Incomplete) return array
      throw error
    }
  }
}

function parseString(p: Parser): { value: string; complete: boolean } {
  if (p.text[p.at] !== '"') throw new SyntaxError(`expected a string at ${p.at}`)
  let value = ''
  p.at++
  while (p.at < p.text.length) {
    const char = p.text.charAt(p.at)
    if (char === '"') {
      p.at++
      return { value, complete: true }
    }
    if (char === '\\') {
      const escaped = p.text[p.at + 1]
      if (escaped === undefined) break
      if (escaped === 'u') {
        const hex = p.text.slice(p.at + 2, p.at + 6)
        if (hex.length < 4) break
        value += String.fromCharCode(Number.parseInt(hex, 16))
        p.at += 6
        continue
      }
      value += ({ n: '\n', t: '\t', r: '\r', b: '\b', f: '\f' } as Record<string, string>)[escaped] ?? escaped
      p.at += 2
      continue
    }
    value += char
    p.at++
  }
  p.at = p.text.length
  return { value, complete: false }
}

function parseLiteral(p: Parser): unknown {
  const match = /^(-?\d+(\.\d+)?([eE][+-]?\d+)?|true|false|null)/.exec(p.text.slice(p.at))
  if (!match) {
    const rest = p.text.slice(p.at)
    if (['t', 'tr', 'tru', 'f', 'fa', 'fal', 'fals', 'n', 'nu', 'nul', '-'].includes(rest))
      throw new Incomplete()
    throw new SyntaxError(`unexpected ${rest.slice(0, 10)}`)
  }
  p.at += match[0].length
  return JSON.parse(match[0])
}

/** The first balanced JSON object inside free text (a model that wrote JSON instead of calling the tool). */
export function extractJsonObject(text: string): unknown {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(text)
  const candidates = fenced?.[1] ? [fenced[1], text] : [text]
  for (const candidate of candidates) {
    for (let start = candidate.indexOf('{'); start !== -1; start = candidate.indexOf('{', start + 1)) {
      const end = matchingBrace(candidate, start)
      if (end === -1) continue
      try {
        return JSON.parse(candidate.slice(start, end + 1))
      } catch {
        // Not JSON from this brace; try the next one.
      }
    }
  }
  return undefined
}

function matchingBrace(text: string, start: number): number {
  let depth = 0
  let inString = false
  for (let i = start; i < text.length; i++) {
    const char = text[i]
    if (inString) {
      if (char === '\\') i++
      else if (char === '"') inString = false
    } else if (char === '"') inString = true
    else if (char === '{') depth++
    else if (char === '}') {
      depth--
      if (depth === 0) return i
    }
  }
  return -1
}
