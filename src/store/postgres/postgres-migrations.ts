import type { Sql } from 'postgres'
import { versionsOf } from '../sql-schema.ts'

/**
 * The PostgreSQL schema as numbered migrations, applied in order at start;
 * written once for both stores in sql-schema.ts. Times are ISO strings, as in
 * SQLite, so page cursors compare the same on both stores.
 */
export const migrations: readonly { version: number; sql: string }[] = versionsOf('postgres')

/** Any number to tell our lock from others': migrations run under it, one server at a time. */
const migrationLock = 0x5e7a47

/** Applies the steps not applied yet, in one transaction; refuses a database of a newer Sextant. */
export async function migrate(sql: Sql): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${migrationLock})`
    await tx.unsafe(
      'CREATE TABLE IF NOT EXISTS sextant_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())',
    )
    const [row] = await tx<
      { version: number | null }[]
    >`SELECT max(version) AS version FROM sextant_migrations`
    const current = row?.version ?? 0
    const newest = migrations.at(-1)?.version ?? 0
    if (current > newest) {
      throw new Error(
        `The database was written by a newer Sextant (schema ${current}, this one knows ${newest}).`,
      )
    }
    for (const step of migrations) {
      if (step.version <= current) continue
      await tx.unsafe(step.sql)
      await tx`INSERT INTO sextant_migrations (version) VALUES (${step.version})`
    }
  })
}
