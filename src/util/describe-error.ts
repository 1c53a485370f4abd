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
