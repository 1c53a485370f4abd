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

/** What stands for text typed into a password field. */
export const maskedText = '••••••'

/**
 * Replaces secrets in a value before it leaves the run: values under secret
 * keys, and, with `scrub`, a run's secret values wherever they occur in a
 * string (see src/secrets/). Events and logs share this one rule.
 */
export interface Redactor {
  /** A copy of `value` with every secret replaced; `value` itself is not changed. */
  redact(value: unknown): unknown
}

export interface RedactorOptions {
  /** Replaces a run's secret values in a string by their placeholders. */
  scrub?: (text: string) => string
}

/**
 * The redactor. Plain objects and arrays are walked; an Error is turned into
 * `{ type, message, stack }` (what pino's serializer would print) so that its
 * text is scrubbed too; other objects (a Date) are kept as they are.
 */
export function createRedactor(options: RedactorOptions = {}): Redactor {
  const scrub = options.scrub
  const redact = (value: unknown): unknown => {
    if (typeof value === 'string') return scrub ? scrub(value) : value
    if (Array.isArray(value)) return value.map(redact)
    if (scrub && value instanceof Error) {
      return {
        type: value.name,
        message: scrub(value.message),
        ...(value.stack ? { stack: scrub(value.stack) } : {}),
      }
    }
    if (!isPlainObject(value)) return value
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, isSecretKey(key) ? redactedText : redact(item)]),
    )
  }
  return { redact }
}

/** A copy of a tool input with the named fields masked (text typed into a password field). */
export function maskFields(input: unknown, fields: readonly string[] | undefined): unknown {
  if (!fields?.length || !isPlainObject(input)) return input
  return Object.fromEntries(
    Object.entries(input).map(([key, value]) => [key, fields.includes(key) ? maskedText : value]),
  )
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

/** Query parameters that carry credentials without a telling name (`?key=`, a signed URL's `sig`). */
const credentialParamPattern = /^(key|sig|signature|auth|jwt)$/i

/**
 * A URL as it may be shown (a metrics label, a message): without its user and
 * password, and with the values of credential-like query parameters
 * (`?token=`, `?apiKey=`, `?key=`) replaced. A URL with nothing to hide is
 * returned as written; one that does not parse loses everything after its host,
 * and `user:pass@host` without a scheme its user and password too.
 */
export function redactUrl(text: string): string {
  // Without `//`, `user:pass@host` parses as the scheme `user:` and an opaque path: it is cut as text.
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return cutCredentials(text)
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return cutCredentials(text)
  }
  const secretParams = [...url.searchParams.keys()].filter(
    (key) => isSecretKey(key) || credentialParamPattern.test(key),
  )
  if (!url.username && !url.password && secretParams.length === 0) return text
  url.username = ''
  url.password = ''
  for (const key of new Set(secretParams)) url.searchParams.set(key, '***')
  return url.href
}

/** What does not parse as a URL, shown without what could be its user, password or query. */
function cutCredentials(text: string): string {
  return text.replace(/^([a-z][a-z0-9+.-]*:\/\/)?[^/?#]*@/i, '$1').replace(/[?#].*$/, '')
}
