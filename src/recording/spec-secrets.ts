import { randomUUID } from 'node:crypto'
import { placeholdersIn } from '../secrets/secrets.ts'
import type { RecordedStep, Recording } from './schema.ts'
import { quote } from './spec-text.ts'
import { templatesIn } from './variables.ts'

/**
 * How an exported spec writes a recording's text. Everything is a literal,
 * escaped so no recorded text can become code, except two kinds of parameter:
 *
 * - `{{name}}` of a variable the recording declares, which becomes the spec's
 *   parameter of that name;
 * - `<secret>name</secret>` of a secret the recording's run had, in the input
 *   field a step typed that very secret through, which becomes
 *   `secret('name')` (read from the environment when the test runs).
 *
 * Any other placeholder (one a page got the model to write into a URL, a
 * step's goal, an element's name, an expected URL; a name the run never had)
 * stays literal text: a spec run in CI never reads a variable of its
 * environment because a page asked for it.
 */
export interface SpecText {
  /** An expression for recorded text. */
  text(value: string): string
  /** The step with its typed secrets marked, so `text` reads them back there and nowhere else. */
  typed(step: RecordedStep): RecordedStep
}

export function specText(recording: Recording, identifier: (name: string) => string): SpecText {
  const variables = new Set(Object.keys(recording.variables ?? {}))
  const runSecrets = new Set(recording.secrets ?? [])
  // Unguessable per export: no recorded text can carry a mark that reads a secret.
  const mark = `\u{E000}${randomUUID()}:`
  const marked = new RegExp(`${mark}([^\u{E000}]*)\u{E000}`, 'gu')

  const parameters = (value: string): { index: number; written: string; code: string }[] => {
    const found: { index: number; written: string; code: string }[] = []
    for (const { index, written, name } of templatesIn(value))
      if (variables.has(name)) found.push({ index, written, code: identifier(name) })
    for (const match of value.matchAll(marked))
      found.push({ index: match.index ?? 0, written: match[0], code: `secret(${quote(match[1] ?? '')})` })
    return found.sort((a, b) => a.index - b.index)
  }

  return {
    text(value) {
      const found = parameters(value)
      const first = found[0]
      if (!first) return quote(value)
      // A value that is one parameter needs no template around it.
      if (found.length === 1 && first.written === value) return first.code
      let out = '`'
      let last = 0
      for (const { index, written, code } of found) {
        if (index < last) continue
        out += `${escapeTemplate(value.slice(last, index))}\${${code}}`
        last = index + written.length
      }
      return `${out}${escapeTemplate(value.slice(last))}\``
    },
    typed(step) {
      const input = { ...step.input }
      for (const [field, names] of Object.entries(step.secrets ?? {})) {
        const value = input[field]
        if (typeof value !== 'string') continue
        const allowed = new Set(names.filter((name) => runSecrets.has(name)))
        let out = ''
        let last = 0
        for (const { index, written, name } of placeholdersIn(value)) {
          if (!allowed.has(name)) continue
          out += `${value.slice(last, index)}${mark}${name}\u{E000}`
          last = index + written.length
        }
        input[field] = `${out}${value.slice(last)}`
      }
      return { ...step, input }
    },
  }
}

function escapeTemplate(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/`/g, '\\`').replace(/\$\{/g, '\\${')
}
