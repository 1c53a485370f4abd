/**
 * Cuts `text` to at most `max` characters, ending a cut text with `marker`
 * (counted in `max`), so every shortened string in Sextant says it was cut.
 */
export function truncate(text: string, max: number, marker = '…'): string {
  if (text.length <= max) return text
  return `${text.slice(0, Math.max(0, max - marker.length))}${marker}`
}

/** Whitespace folded to single spaces, cut to `max`, and quoted as a JSON string. */
export function quoteText(text: string, max = 80): string {
  return JSON.stringify(truncate(text.replace(/\s+/g, ' '), max))
}
