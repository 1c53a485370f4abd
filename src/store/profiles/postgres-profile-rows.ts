import type { Sql } from 'postgres'
import {
  infoOfRow,
  type ProfileInfo,
  type ProfileRow,
  type ProfileRows,
  profileInfoColumns,
} from './profile-rows.ts'

/** Any number to tell our locks from others': one per profile name, held by its update's transaction. */
const profileLockSpace = 0x5e7a48

/** Profiles in the PostgreSQL store, shared by its servers; one update of a profile at a time across them. */
export class PostgresProfileRows implements ProfileRows {
  readonly #db: () => Promise<Sql>

  constructor(db: () => Promise<Sql>) {
    this.#db = db
  }

  async list(): Promise<ProfileInfo[]> {
    const sql = await this.#db()
    const rows = await sql.unsafe(`SELECT ${profileInfoColumns} FROM profiles ORDER BY name`)
    return rows.map(infoOfRow)
  }

  async get(name: string): Promise<string | undefined> {
    const sql = await this.#db()
    const [row] = await sql<{ data: string }[]>`SELECT data FROM profiles WHERE name = ${name}`
    return row?.data
  }

  async update(name: string, change: (stored: string | undefined) => ProfileRow): Promise<void> {
    const sql = await this.#db()
    await sql.begin(async (tx) => {
      // An advisory lock rather than FOR UPDATE: it also serializes the first save, when no row exists to lock.
      await tx`SELECT pg_advisory_xact_lock(${profileLockSpace}, hashtext(${name}))`
      const [current] = await tx<{ data: string }[]>`SELECT data FROM profiles WHERE name = ${name}`
      const row = change(current?.data)
      await tx`INSERT INTO profiles (name, data, domains, size, updated_at, last_run_id)
        VALUES (${name}, ${row.data}, ${JSON.stringify(row.domains)}, ${row.size}, ${row.updatedAt},
          ${row.lastRunId ?? null})
        ON CONFLICT (name) DO UPDATE SET data = excluded.data, domains = excluded.domains, size = excluded.size,
          updated_at = excluded.updated_at, last_run_id = excluded.last_run_id`
    })
  }

  async delete(name: string): Promise<boolean> {
    const sql = await this.#db()
    const rows = await sql`DELETE FROM profiles WHERE name = ${name} RETURNING name`
    return rows.length > 0
  }
}
