import type { ProfileInfo, ProfileRow, ProfileRows } from './profile-rows.ts'

/** Profiles of this process only, for the memory store. */
export class MemoryProfileRows implements ProfileRows {
  readonly #rows = new Map<string, ProfileRow>()

  async list(): Promise<ProfileInfo[]> {
    return [...this.#rows.values()]
      .sort((a, b) => a.name.localeCompare(b.name))
      .map(({ data: _sealed, ...info }) => info)
  }

  async get(name: string): Promise<string | undefined> {
    return this.#rows.get(name)?.data
  }

  async update(name: string, change: (stored: string | undefined) => ProfileRow): Promise<void> {
    this.#rows.set(name, change(this.#rows.get(name)?.data))
  }

  async delete(name: string): Promise<boolean> {
    return this.#rows.delete(name)
  }
}
