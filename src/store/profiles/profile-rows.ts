/** What the listing shows of a profile: never a value. */
export interface ProfileInfo {
  name: string
  /** Sites it holds state for (cookie domains, origin hosts). */
  domains: string[]
  /** Bytes of its state, before sealing. */
  size: number
  updatedAt: string
  /** The run that saved it last; absent when it was imported. */
  lastRunId?: string
}

/** A profile as stored: its sealed state and its listing. */
export interface ProfileRow extends ProfileInfo {
  /** The state, sealed (ProfileCipher): the store never sees it in clear. */
  data: string
}

/**
 * Profiles as each store keeps them. `update` reads and writes one profile
 * atomically (one writer per profile at a time, across processes and servers),
 * which is what lets concurrent runs merge their saves without losing one.
 */
export interface ProfileRows {
  list(): Promise<ProfileInfo[]>
  /** The sealed state, or undefined when there is no such profile. */
  get(name: string): Promise<string | undefined>
  /** `change` gets the sealed state stored now (undefined: none) and returns the row to store. */
  update(name: string, change: (stored: string | undefined) => ProfileRow): Promise<void>
  delete(name: string): Promise<boolean>
}

/** A row of either SQL store, as its listing. */
export function infoOfRow(row: Record<string, unknown>): ProfileInfo {
  return {
    name: String(row.name),
    domains: JSON.parse(String(row.domains)) as string[],
    size: Number(row.size),
    updatedAt: String(row.updated_at),
    ...(row.last_run_id == null ? {} : { lastRunId: String(row.last_run_id) }),
  }
}

export const profileInfoColumns = 'name, domains, size, updated_at, last_run_id'
