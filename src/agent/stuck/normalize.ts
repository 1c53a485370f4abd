import { truncate } from '../../util/text.ts'
import type { StuckOptions } from './options.ts'
import type { TraceAction } from './trace.ts'

/**
 * Canonical forms for comparing actions and URLs: two inputs that differ only
 * in whitespace, case, a trailing slash, query-parameter order or tracking
 * parameters are the same action. Pagination values are kept as they are, so
 * `?page=2` and `?page=3` stay different actions.
 */

type UrlOptions = Pick<StuckOptions, 'ignoredQueryParams' | 'paginationKeys'>

const absoluteUrl = /^[a-z][a-z0-9+.-]*:\/\//i

/** A URL in canonical form; text that is not an absolute URL is only trimmed and lower-cased. */
export function normalizeUrl(raw: string, options: UrlOptions): string {
  const text = raw.trim()
  if (!absoluteUrl.test(text)) return normalizeText(text).replace(/(.)\/+$/, '$1')
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return normalizeText(text)
  }
  const ignored = new Set(options.ignoredQueryParams.map((name) => name.toLowerCase()))
  const pagination = new Set(options.paginationKeys.map((name) => name.toLowerCase()))
  const params = [...url.searchParams.entries()]
    .map(([name, value]) => [name.toLowerCase(), value.trim()] as const)
    .filter(([name, value]) => pagination.has(name) || (!ignored.has(name) && value !== ''))
    .sort(([a, av], [b, bv]) => (a === b ? av.localeCompare(bv) : a.localeCompare(b)))
  const query = params.map(([name, value]) => `${name}=${value.toLowerCase()}`).join('&')
  const path = url.pathname.replace(/\/+$/, '').toLowerCase()
  const hash = url.hash
    .replace(/^#\/?$/, '')
    .replace(/\/+$/, '')
    .toLowerCase()
  // URL() already lower-cases the scheme and host and drops default ports.
  return `${url.protocol}//${url.host}${path}${query ? `?${query}` : ''}${hash}`
}

function normalizeText(text: string): string {
  return text.trim().replace(/\s+/g, ' ').toLowerCase()
}

function canonical(value: unknown, options: UrlOptions): unknown {
  if (typeof value === 'string')
    return absoluteUrl.test(value.trim()) ? normalizeUrl(value, options) : normalizeText(value)
  if (Array.isArray(value)) return value.map((item) => canonical(item, options))
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .map(([key, item]) => [key, canonical(item, options)] as const)
      .sort(([a], [b]) => a.localeCompare(b))
    return Object.fromEntries(entries)
  }
  return value
}

/** A string that is equal for two actions exactly when they count as the same action. */
export function actionKey(action: TraceAction, options: UrlOptions): string {
  return `${action.tool} ${JSON.stringify(canonical(action.input, options)) ?? 'null'}`
}

/** The action as the model wrote it, shortened for a note: `click {"ref":"b7xk"}`. */
export function describeAction(action: TraceAction, maxChars = 120): string {
  const input = JSON.stringify(action.input ?? {}) ?? ''
  const text = input === '{}' ? action.tool : `${action.tool} ${input}`
  return truncate(text, maxChars)
}

/** A short quotation of a result text. */
export function quote(text: string, maxChars = 100): string {
  const oneLine = text.replace(/\s+/g, ' ').trim()
  return `"${truncate(oneLine, maxChars)}"`
}
