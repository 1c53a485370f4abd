/**
 * A profile's browser state, in the shape of Playwright's `storageState`
 * (cookies; per origin local storage and, with `indexedDB: true`, IndexedDB),
 * written here rather than imported so the store depends on no browser.
 */

export interface ProfileCookie {
  name: string
  value: string
  domain: string
  path: string
  /** Unix time in seconds; -1 for a session cookie. */
  expires: number
  httpOnly: boolean
  secure: boolean
  sameSite: 'Strict' | 'Lax' | 'None'
}

export interface ProfileOrigin {
  origin: string
  localStorage: { name: string; value: string }[]
  /** Playwright's IndexedDB dump: kept as it came, restored as it is. */
  indexedDB?: unknown[]
}

export interface ProfileState {
  cookies: ProfileCookie[]
  origins: ProfileOrigin[]
}

export const emptyProfileState: ProfileState = { cookies: [], origins: [] }

/** A cookie's identity, as browsers key them: name, domain and path. */
function cookieKey(cookie: ProfileCookie): string {
  return JSON.stringify([cookie.name, cookie.domain.toLowerCase(), cookie.path])
}

/**
 * The state to store after a run: what is stored now, with what the run
 * changed applied to it. A cookie or origin the run started with (`base`) and
 * no longer has was removed by the run (a sign-out) and goes; everything the
 * run has replaces the stored one of the same key; everything else stored
 * (another run's save meanwhile, sites this run could not reach) stays.
 */
export function mergeProfileState(
  stored: ProfileState,
  base: ProfileState,
  saved: ProfileState,
): ProfileState {
  return {
    cookies: mergeBy(stored.cookies, base.cookies, saved.cookies, cookieKey),
    origins: mergeBy(stored.origins, base.origins, saved.origins, (origin) => origin.origin),
  }
}

function mergeBy<T>(stored: T[], base: T[], saved: T[], key: (item: T) => string): T[] {
  const savedKeys = new Set(saved.map(key))
  const removed = new Set(base.map(key).filter((k) => !savedKeys.has(k)))
  const merged = new Map<string, T>()
  for (const item of stored) if (!removed.has(key(item))) merged.set(key(item), item)
  for (const item of saved) merged.set(key(item), item)
  return [...merged.values()]
}

/** The sites a profile holds state for: cookie domains and origin hosts, without a leading dot, sorted. */
export function profileDomains(state: ProfileState): string[] {
  const hosts = new Set<string>()
  for (const cookie of state.cookies) hosts.add(cookie.domain.replace(/^\./, '').toLowerCase())
  for (const origin of state.origins) {
    try {
      hosts.add(new URL(origin.origin).host)
    } catch {
      // An origin Playwright wrote is a URL; one imported by hand may not be, and names no site.
    }
  }
  return [...hosts].sort()
}
