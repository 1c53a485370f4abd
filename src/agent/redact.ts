/** Input keys whose values never leave the run in an event or a log line. */
const secretKey = /password|passwd|secret|token|api_?key|authorization|credential/i

export function redactInput(input: unknown): unknown {
  if (Array.isArray(input)) return input.map(redactInput)
  if (typeof input !== 'object' || input === null) return input
  return Object.fromEntries(
    Object.entries(input).map(([key, value]) => [
      key,
      secretKey.test(key) ? '[redacted]' : redactInput(value),
    ]),
  )
}
