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

/** A duration in words for people and models: seconds up to two minutes, then minutes. */
export function describeDuration(ms: number): string {
  const seconds = Math.round(ms / 1000)
  if (seconds < 120) return `${seconds} s`
  return `${Math.round(seconds / 60)} min`
}
