/** Default bound on one event's JSON, in bytes: a 5 MB page title must not make a 5 MB event. */
export const defaultMaxEventBytes = 256 * 1024

/** What an event cap cut: the event as it fits, and how many characters went. */
export interface CappedEvent<T> {
  event: T
  /** Characters removed from string fields; 0 when the event fit. */
  cut: number
}

const marker = (cut: number) => `… [${cut} characters cut: event size cap]`

/**
 * Keeps an event under `maxBytes` of JSON by shortening its longest string
 * fields (at any depth), each ending with a note of what was cut. The event
 * itself is always kept: its type, ids and numbers are never touched.
 */
export function capEvent<T extends object>(event: T, maxBytes: number): CappedEvent<T> {
  if (byteSize(event) <= maxBytes) return { event, cut: 0 }
  // Find the longest string length limit that fits, by halving then bisecting.
  let high = longestString(event)
  let low = 0
  while (low < high) {
    const mid = Math.ceil((low + high) / 2)
    if (byteSize(shorten(event, mid).value) <= maxBytes) low = mid
    else high = mid - 1
  }
  const { value, cut } = shorten(event, low)
  // Same shape as `event`: only the lengths of its strings changed.
  return { event: value as T, cut }
}

function byteSize(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value))
}

function longestString(value: unknown): number {
  if (typeof value === 'string') return value.length
  if (Array.isArray(value)) return Math.max(0, ...value.map(longestString))
  if (value && typeof value === 'object') return Math.max(0, ...Object.values(value).map(longestString))
  return 0
}

/** Short fields that name the event; never cut. */
const identityKeys = new Set(['type', 'runId', 'at', 'callId', 'code', 'questionId'])

/** A copy with every string longer than `limit` cut to it (plus the marker); identity fields are never cut. */
function shorten(value: unknown, limit: number, key?: string): { value: unknown; cut: number } {
  if (typeof value === 'string') {
    if (value.length <= limit || (key !== undefined && identityKeys.has(key))) return { value, cut: 0 }
    const cut = value.length - limit
    return { value: value.slice(0, limit) + marker(cut), cut }
  }
  if (Array.isArray(value)) {
    let cut = 0
    const items = value.map((item) => {
      const shortened = shorten(item, limit)
      cut += shortened.cut
      return shortened.value
    })
    return { value: items, cut }
  }
  if (value && typeof value === 'object') {
    let cut = 0
    const entries = Object.entries(value).map(([name, item]) => {
      const shortened = shorten(item, limit, name)
      cut += shortened.cut
      return [name, shortened.value]
    })
    return { value: Object.fromEntries(entries), cut }
  }
  return { value, cut: 0 }
}
