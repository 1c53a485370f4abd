/**
 * Cuts `text` to at most `max` characters, ending a cut text with `marker`
 * (counted in `max`), so every shortened string in Sextant says it was cut.
 */
export function truncate(text: string, max: number, marker = '…'): string {
  if (text.length <= max) return text
  return `${text.slice(0, Math.max(0, max - marker.length))}${marker}`
}

/** A name quoted as the page view shows it: as the page spells it (no whitespace folding), cut to `max`. */
export function quote(text: string, max = 100): string {
  return JSON.stringify(truncate(text, max))
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

/**
 * The model's words to a person (a hand-over's reason), quoted and labelled as
 * its own: a page can dictate what the model writes, so they must never read
 * as Sextant's message. One line, without control or bidirectional-override
 * characters that could fake a line of Sextant's or hide where the quote ends.
 */
export function modelSays(text: string, max = 500): string {
  const line = text.replace(/[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069\s]+/gu, ' ').trim()
  return `The model says: “${truncate(line, max)}”`
}
