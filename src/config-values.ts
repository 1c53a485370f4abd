import { z } from 'zod'

/**
 * The kinds of value a setting takes, as config.ts parses them from the
 * environment or a flag: each reports what it expected, so config.ts can
 * name the variable and the problem together.
 */

const truthy = ['1', 'true', 'yes', 'on']
const falsy = ['0', 'false', 'no', 'off']

export const booleanSetting = z.union([z.boolean(), z.string()]).transform((value, ctx) => {
  if (typeof value === 'boolean') return value
  const normalized = value.trim().toLowerCase()
  if (truthy.includes(normalized)) return true
  if (falsy.includes(normalized)) return false
  ctx.addIssue({ code: 'custom', message: `expected one of ${[...truthy, ...falsy].join(', ')}` })
  return z.NEVER
})

/** A boolean, or one more word that means a third way (`SEXTANT_HEADED=virtual`). */
export function booleanOr<const Word extends string>(word: Word) {
  return z.union([z.boolean(), z.string()]).transform((value, ctx): boolean | Word => {
    if (typeof value === 'boolean') return value
    const normalized = value.trim().toLowerCase()
    if (normalized === word) return word
    if (truthy.includes(normalized)) return true
    if (falsy.includes(normalized)) return false
    ctx.addIssue({
      code: 'custom',
      message: `expected one of ${[...truthy, ...falsy].join(', ')}, or ${word}`,
    })
    return z.NEVER
  })
}

export function integer(min: number, max: number) {
  return z.union([z.number(), z.string()]).transform((value, ctx) => {
    const number = typeof value === 'number' ? value : Number(value.trim())
    if (!Number.isInteger(number) || number < min || number > max) {
      ctx.addIssue({ code: 'custom', message: `expected an integer from ${min} to ${max}` })
      return z.NEVER
    }
    return number
  })
}

export function url(protocols: string[]) {
  return z.string().refine(
    (value) => {
      try {
        return protocols.includes(new URL(value).protocol)
      } catch {
        return false
      }
    },
    { message: `expected a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}` },
  )
}

/**
 * One or more endpoint URLs, comma-separated (a browser fleet); kept as the
 * comma-joined list, each URL checked. splitEndpoints() gives them one by one.
 */
export function urlList(protocols: string[]) {
  const one = url(protocols)
  return z.string().transform((value, ctx) => {
    const parts = splitEndpoints(value)
    const bad = parts.filter((part) => !one.safeParse(part).success)
    if (parts.length === 0 || bad.length > 0) {
      ctx.addIssue({
        code: 'custom',
        message: `expected a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}, or several separated by commas`,
      })
      return z.NEVER
    }
    return parts.join(',')
  })
}

/** The endpoints of SEXTANT_BROWSER_WS or SEXTANT_CDP_URL, one by one. */
export function splitEndpoints(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
}

/** A comma-separated list of host names (`name` or `*.name`). */
export const hostList = z.union([z.array(z.string()), z.string()]).transform((value, ctx) => {
  const names = (typeof value === 'string' ? value.split(',') : value)
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean)
  const bad = names.filter((name) => !/^(\*\.)?[a-z0-9.-]+$|^\[[0-9a-f:.]+\]$/.test(name))
  if (bad.length > 0) {
    ctx.addIssue({
      code: 'custom',
      message: `not a host name: ${bad.join(', ')} (expected e.g. sextant.example.com, *.example.com or [::1], without a port)`,
    })
    return z.NEVER
  }
  return names
})

/**
 * A Standard Webhooks signing key: `whsec_` and the base64 of 24 to 64 random
 * bytes (the specification's bounds), as the receivers' libraries read it.
 */
export const webhookKey = z.string().superRefine((value, ctx) => {
  const body = value.trim().startsWith('whsec_') ? value.trim().slice('whsec_'.length) : undefined
  const bytes =
    body !== undefined && /^[A-Za-z0-9+/]+={0,2}$/.test(body) ? Buffer.from(body, 'base64') : undefined
  if (bytes && bytes.length >= 24 && bytes.length <= 64) return
  ctx.addIssue({
    code: 'custom',
    message:
      'expected whsec_ followed by the base64 of 24 to 64 random bytes (e.g. "whsec_$(openssl rand -base64 32)")',
  })
})

/** The files a run may keep of itself (browser/session/artifacts/): the names SEXTANT_ARTIFACTS and a request use. */
export const artifactKinds = ['trace', 'video', 'har'] as const

/** A comma-separated list of artifact kinds (`trace,har`), read as the request's `artifacts` object; `none` or empty: none. */
export const artifactList = z.string().transform((value, ctx) => {
  const names = value
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name && name !== 'none')
  const bad = names.filter((name) => !(artifactKinds as readonly string[]).includes(name))
  if (bad.length > 0) {
    ctx.addIssue({
      code: 'custom',
      message: `not an artifact: ${bad.join(', ')} (expected ${artifactKinds.join(', ')})`,
    })
    return z.NEVER
  }
  return Object.fromEntries(names.map((name) => [name, true])) as Partial<
    Record<(typeof artifactKinds)[number], true>
  >
})
