import { z } from 'zod'
import { hostMatchesDomains } from './domains.ts'

/**
 * A run's secrets: values the model must never read, written by it as
 * `<secret>name</secret>` and revealed by a browser action at the last moment,
 * only on the secret's domains when it names any. Everything Sextant writes or
 * sends is scrubbed of the values (each replaced by its placeholder).
 */

const secretName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/, 'a secret name is a letter or _, then letters, digits, _ . -')
const secretValue = z.string().min(1, 'a secret value must not be empty').max(4096)

export const SecretsSchema = z
  .record(
    secretName,
    z.union([
      secretValue,
      z.strictObject({
        value: secretValue,
        domains: z
          .array(z.string().trim().min(1).max(253))
          .min(1)
          .max(50)
          .optional()
          .describe(
            'Hosts where the secret may be typed (`host`, `host:port`, `*.host`); anywhere when absent.',
          ),
      }),
    ]),
  )
  .refine((secrets) => Object.keys(secrets).length <= 50, 'at most 50 secrets')
  .describe(
    'Values the model only sees as <secret>name</secret>: `{ name: value }` or `{ name: { value, domains } }`. Never stored.',
  )

export type SecretsInput = z.input<typeof SecretsSchema>

export interface Secret {
  name: string
  value: string
  /** Absent: the secret may be typed on any page. */
  domains?: string[]
}

/** What revealing gave: the text with values in place of placeholders, or why not. */
export type Revealed = { ok: true; text: string; names: string[] } | { ok: false; reason: string }

/** A value scrubbed like a secret that the model can never write back: it reads `[label]`. */
export interface HiddenValue {
  label: string
  value: string
}

export class SecretsError extends Error {
  override name = 'SecretsError'
}

const placeholderPattern = /<secret>\s*([A-Za-z0-9_.-]+)\s*<\/secret>/g

/** Whether `text` names a secret by placeholder: only then does revealing it depend on where it goes. */
export function namesSecret(text: string): boolean {
  return text.search(placeholderPattern) >= 0
}

/** Each placeholder in `text`: where it is, as written, and the name it gives. */
export function placeholdersIn(text: string): { index: number; written: string; name: string }[] {
  return [...text.matchAll(placeholderPattern)].map((match) => ({
    index: match.index ?? 0,
    written: match[0],
    name: match[1] ?? '',
  }))
}

/** Anything written like a placeholder's opening, loosely (case, spaces): what a field outside `type` may not hold. */
const placeholderLike = /<\s*secret\s*>/i

/**
 * The path of the first string in `input` (outside the field `typed`) that
 * holds a secret placeholder, or undefined. A secret is only ever typed into a
 * field: written in a URL, a key, a script or a search it would leave the
 * page's field for wherever that input goes, so it is refused, never expanded.
 */
export function placeholderOutside(input: unknown, typed?: string): string | undefined {
  const visit = (value: unknown, path: string): string | undefined => {
    if (typeof value === 'string') return placeholderLike.test(value) ? path || 'input' : undefined
    if (Array.isArray(value)) {
      for (const [index, item] of value.entries()) {
        const found = visit(item, `${path}[${index}]`)
        if (found) return found
      }
      return undefined
    }
    if (value === null || typeof value !== 'object') return undefined
    for (const [key, item] of Object.entries(value)) {
      if (path === '' && key === typed) continue
      const found = visit(item, path ? `${path}.${key}` : key)
      if (found) return found
    }
    return undefined
  }
  return visit(input, '')
}

export function placeholder(name: string): string {
  return `<secret>${name}</secret>`
}

export class RunSecrets {
  readonly #secrets: Map<string, Secret>
  /** Every written form of every value, longest first, with the placeholder that replaces it. */
  readonly #forms: { form: string; placeholder: string }[]

  private constructor(secrets: Secret[], hidden: readonly HiddenValue[] = []) {
    this.#secrets = new Map(secrets.map((secret) => [secret.name, secret]))
    const forms = new Map<string, string>()
    for (const secret of secrets) {
      for (const form of writtenForms(secret.value))
        if (!forms.has(form)) forms.set(form, placeholder(secret.name))
    }
    for (const { label, value } of hidden) {
      for (const form of writtenForms(value)) if (!forms.has(form)) forms.set(form, `[${label}]`)
    }
    this.#forms = [...forms]
      .map(([form, replacement]) => ({ form, placeholder: replacement }))
      .sort((a, b) => b.form.length - a.form.length)
  }

  static none(): RunSecrets {
    return new RunSecrets([])
  }

  /**
   * Validates `{ name: value }` / `{ name: { value, domains } }`; throws SecretsError naming what is wrong.
   * `hidden` values (a proxy's credentials) are scrubbed like secrets but have no placeholder to reveal them.
   */
  static from(input: SecretsInput | undefined, hidden: readonly HiddenValue[] = []): RunSecrets {
    if (input === undefined) return new RunSecrets([], hidden)
    const parsed = SecretsSchema.safeParse(input)
    if (!parsed.success) {
      const problems = parsed.error.issues.map((issue) =>
        issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message,
      )
      throw new SecretsError(`Invalid secrets: ${problems.join('; ')}`)
    }
    return new RunSecrets(
      Object.entries(parsed.data).map(([name, entry]) =>
        typeof entry === 'string'
          ? { name, value: entry }
          : { name, value: entry.value, ...(entry.domains ? { domains: entry.domains } : {}) },
      ),
      hidden,
    )
  }

  /** Whether there is nothing to scrub (no secret, no hidden value). */
  get isEmpty(): boolean {
    return this.#forms.length === 0
  }

  /** Names and where each may be typed, for the system prompt (never the values). */
  describe(): { name: string; domains?: string[] }[] {
    return [...this.#secrets.values()].map(({ name, domains }) => ({ name, ...(domains ? { domains } : {}) }))
  }

  /** `text` with every value (raw, URL-encoded, JSON-escaped) replaced by its placeholder. */
  scrub(text: string): string {
    let scrubbed = text
    for (const { form, placeholder: replacement } of this.#forms) {
      if (scrubbed.includes(form)) scrubbed = scrubbed.replaceAll(form, replacement)
    }
    return scrubbed
  }

  /**
   * A copy of `value` with every string of its plain objects and arrays
   * scrubbed. Keys are the code's vocabulary, not data, and are kept; so are
   * the values under `keep` (fixed words such as an event's `type`, which a
   * short secret must not turn into something the schema refuses).
   */
  scrubDeep<T>(value: T, keep: ReadonlySet<string> = new Set()): T {
    if (this.isEmpty) return value
    return this.#scrubValue(value, keep) as T
  }

  #scrubValue(value: unknown, keep: ReadonlySet<string>): unknown {
    if (typeof value === 'string') return this.scrub(value)
    if (Array.isArray(value)) return value.map((item) => this.#scrubValue(item, keep))
    if (!isPlainObject(value)) return value
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, keep.has(key) ? item : this.#scrubValue(item, keep)]),
    )
  }

  /** Whether `text` holds any secret's value as is (what a page shows of one). */
  shows(text: string): boolean {
    for (const secret of this.#secrets.values()) if (text.includes(secret.value)) return true
    return false
  }

  /**
   * `text` with each placeholder replaced by its value, when every secret it
   * names may be used on `pageUrl`; else why not (an unknown name, or a
   * scoped secret on another host).
   */
  reveal(text: string, pageUrl: string): Revealed {
    const names: string[] = []
    for (const match of text.matchAll(placeholderPattern)) {
      const name = match[1] ?? ''
      const secret = this.#secrets.get(name)
      if (!secret) {
        const known = [...this.#secrets.keys()].join(', ')
        return {
          ok: false,
          reason: `There is no secret named "${name}" in this run${known ? ` (its secrets: ${known})` : ''}.`,
        }
      }
      if (secret.domains && !hostMatchesDomains(pageUrl, secret.domains)) {
        return {
          ok: false,
          reason: `Refused: the secret "${name}" may only be used on ${secret.domains.join(', ')}, and this page is ${describeHost(pageUrl)}.`,
        }
      }
      if (!names.includes(name)) names.push(name)
    }
    if (names.length === 0) return { ok: true, text, names }
    const revealed = text.replace(
      placeholderPattern,
      (_, name: string) => this.#secrets.get(name)?.value ?? '',
    )
    return { ok: true, text: revealed, names }
  }
}

/**
 * The forms a value takes in what Sextant writes: as is, URL-encoded (a form
 * posted or a query string echoed in a URL), and JSON-escaped (inside a
 * serialized event or request body).
 */
function writtenForms(value: string): string[] {
  const forms = new Set([value])
  forms.add(encodeURIComponent(value))
  forms.add(encodeURIComponent(value).replace(/%20/g, '+'))
  // A form posted or sent by GET (application/x-www-form-urlencoded also escapes ! ' ( ) ~).
  forms.add(new URLSearchParams({ v: value }).toString().slice(2))
  forms.add(encodeURI(value))
  forms.add(JSON.stringify(value).slice(1, -1))
  // Doubly escaped: a JSON string inside a JSON string (a tool input logged as text), without the quotes
  // around it (`"\"` and `\""`), which the text around it needs to stay JSON.
  forms.add(JSON.stringify(JSON.stringify(value)).slice(3, -3))
  return [...forms].filter((form) => form.length > 0)
}

function describeHost(pageUrl: string): string {
  try {
    const url = new URL(pageUrl)
    return url.host ? url.host : `"${url.protocol}" (no host)`
  } catch {
    return 'not a web page'
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false
  const prototype = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === null
}
