import { randomBytes, randomInt } from 'node:crypto'

/**
 * A name for what Sextant leaves where a page's scripts can read it (a mark
 * attribute, a global, a symbol): random, so no page finds "sextant" in it or
 * knows it in advance. It starts with a letter, so it is a valid attribute
 * name, identifier and CSS name after any `prefix` (`data-`).
 */
export function pageName(prefix = ''): string {
  return `${prefix}${String.fromCharCode(97 + randomInt(26))}${randomBytes(5).toString('hex')}`
}
