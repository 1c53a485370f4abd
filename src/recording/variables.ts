/**
 * `{{name}}` templates in a recording's typed values. A recording keeps the
 * template; a replay fills it from its variables (over the recording's
 * defaults).
 */

const template = /\{\{\s*([A-Za-z_][\w.-]*)\s*\}\}/g

/** Each `{{name}}` in `text`: where it is, as written, and its name. */
export function templatesIn(text: string): { index: number; written: string; name: string }[] {
  return [...text.matchAll(template)].map((match) => ({
    index: match.index ?? 0,
    written: match[0],
    name: match[1] ?? '',
  }))
}

/** The variable names `text` uses. */
export function variablesIn(text: string): string[] {
  return [...text.matchAll(template)].map((match) => match[1] ?? '')
}

/** `text` with each `{{name}}` replaced; a name without a value stays as written. */
export function fillTemplate(text: string, values: Readonly<Record<string, string>>): string {
  return text.replace(template, (whole, name: string) => values[name] ?? whole)
}

/** A copy of `value` with every string filled (plain objects and arrays walked). */
export function fillDeep<T>(value: T, values: Readonly<Record<string, string>>): T {
  return mapStrings(value, (text) => fillTemplate(text, values)) as T
}

/**
 * The reverse, when a recording is made: each variable's value in `text`
 * becomes its template again, longest value first so "Buy milk today" is not
 * cut by "Buy milk". Empty values are left alone.
 */
export function templatize(text: string, values: Readonly<Record<string, string>>): string {
  const entries = Object.entries(values)
    .filter(([, value]) => value.length > 0)
    .sort((a, b) => b[1].length - a[1].length)
  let result = text
  for (const [name, value] of entries) result = result.split(value).join(`{{${name}}}`)
  return result
}

export function templatizeDeep<T>(value: T, values: Readonly<Record<string, string>>): T {
  if (Object.keys(values).length === 0) return value
  return mapStrings(value, (text) => templatize(text, values)) as T
}

/** Every variable name used anywhere in `value`. */
export function variablesInDeep(value: unknown): Set<string> {
  const names = new Set<string>()
  mapStrings(value, (text) => {
    for (const name of variablesIn(text)) names.add(name)
    return text
  })
  return names
}

function mapStrings(value: unknown, map: (text: string) => string): unknown {
  if (typeof value === 'string') return map(value)
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, map))
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, mapStrings(item, map)]))
  }
  return value
}
