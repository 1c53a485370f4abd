/** Any thrown value as one message for a person or a model: an Error's message, a string as is. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message
  if (typeof error === 'string') return error
  try {
    return JSON.stringify(error) ?? String(error)
  } catch {
    // A value that cannot be serialized (a cycle, a BigInt) still needs a message.
    return String(error)
  }
}

/** The first line of an error's message, cut to `max` characters: for a one-line note. */
export function firstLineOf(error: unknown, max = 300): string {
  const text = describeError(error)
  return (text.split('\n')[0] ?? text).slice(0, max)
}
