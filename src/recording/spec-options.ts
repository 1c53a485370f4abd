import { quote } from './spec-text.ts'

/** What the exported lines of several steps write the same way: numbers, click options. */

/** A recorded number, or 0 where the recording has none. */
export function num(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0
}

/** `{ button: 'right', clickCount: 2, modifiers: ['Shift'] }`, or nothing for a plain click. */
export function clickOptions(input: Record<string, unknown>): string {
  const options: string[] = []
  if (typeof input.button === 'string' && input.button !== 'left')
    options.push(`button: ${quote(input.button)}`)
  const count = typeof input.count === 'number' ? input.count : input.double === true ? 2 : 1
  if (count !== 1) options.push(`clickCount: ${count}`)
  if (Array.isArray(input.modifiers) && input.modifiers.length > 0)
    options.push(`modifiers: ${JSON.stringify(input.modifiers.map(String))}`)
  return options.length > 0 ? `{ ${options.join(', ')} }` : ''
}
