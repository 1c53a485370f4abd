import type { DatabaseSync } from 'node:sqlite'
import {
  infoOfRow,
  type ProfileInfo,
  type ProfileRow,
  type ProfileRows,
  profileInfoColumns,
} from './profile-rows.ts'

/** Profiles in the SQLite store's database; an update holds the write lock from its read to its write. */
export class SqliteProfileRows implements ProfileRows {
  readonly #db: DatabaseSync

  constructor(db: DatabaseSync) {
    this.#db = db
  }

  async list(): Promise<ProfileInfo[]> {
    return this.#db.prepare(`SELECT ${profileInfoColumns} FROM profiles ORDER BY name`).all().map(infoOfRow)
  }

  async get(name: string): Promise<string | undefined> {
    return this.#read(name)
  }

  #read(name: string): string | undefined {
    const row = this.#db.prepare('SELECT data FROM profiles WHERE name = ?').get(name)
    return row ? String(row.data) : undefined
  }

  async update(name: string, change: (stored: string | undefined) => ProfileRow): Promise<void> {
    // IMMEDIATE: another process saving the same profile waits here, not after its read. Nothing is
    // awaited inside: another save of this process would start its transaction within this one.
    this.#db.exec('BEGIN IMMEDIATE')
    try {
      const row = change(this.#read(name))
      this.#db
        .prepare(
          `INSERT INTO profiles (name, data, domains, size, updated_at, last_run_id) VALUES (?, ?, ?, ?, ?, ?)
           ON CONFLICT (name) DO UPDATE SET data = excluded.data, domains = excluded.domains, size = excluded.size,
           updated_at = excluded.updated_at, last_run_id = excluded.last_run_id`,
        )
        .run(name, row.data, JSON.stringify(row.domains), row.size, row.updatedAt, row.lastRunId ?? null)
      this.#db.exec('COMMIT')
    } catch (error) {
      this.#db.exec('ROLLBACK')
      throw error
    }
  }

  async delete(name: string): Promise<boolean> {
    return Number(this.#db.prepare('DELETE FROM profiles WHERE name = ?').run(name).changes) > 0
  }
}
