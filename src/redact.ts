/**
 * What is secret, decided once for everything Sextant writes: tool inputs in
 * events (and so in the store, SSE and `--json`) and the fields of log lines.
 */

/** What a secret is replaced with. */
export const redactedText = '[redacted]'

/**
 * Keys whose values are secret at any depth. `token` is matched unless it is
 * the plural: `inputTokens`, `maxSessionTokens` and friends count model
 * tokens and must stay readable in logs, while `token`, `apiToken` and
 * `accessToken` are credentials.
 */
const secretKeyPattern = /password|passwd|secret|api[-_]?key|authorization|credential|token(?!s)/i

export function isSecretKey(key: string): boolean {
  return secretKeyPattern.test(key)
}

/**
 * Replaces secrets in a value before it leaves the run. Today by key only; a
 * run's secret values (scrubbed from every string) will be one more rule of
 * the same redactor, so events and logs keep a single source of truth.
 */
export interface Redactor {
  /** A copy of `value` with every secret replaced by `redactedText`; `value` itself is not changed. */
  redact(value: unknown): unknown
}

/** The redactor by key. Only plain objects and arrays are walked: an Error or a Date is kept as it is. */
export function createRedactor(): Redactor {
  const redact = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(redact)
    if (!isPlainObject(value)) return value
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, isSecretKey(key) ? redactedText : redact(item)]),
    )
  }
  return { redact }
}

const keyRedactor = createRedactor()

/** A tool call's input as events show it: values under secret keys replaced. */
export function redactInput(input: unknown): unknown {
  return keyRedactor.redact(input)
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false
  const prototype = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === null
}
