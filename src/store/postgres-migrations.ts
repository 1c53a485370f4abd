import type { Sql } from 'postgres'

/**
 * The PostgreSQL schema as numbered steps, applied in order at start. A step
 * once released never changes: a new column is a new step. Times are ISO
 * strings, as in SQLite, so page cursors compare the same on both stores.
 */
export const migrations: readonly { version: number; sql: string }[] = [
  {
    version: 1,
    sql: `
CREATE TABLE runs (
  id TEXT PRIMARY KEY,
  task TEXT NOT NULL,
  model TEXT NOT NULL,
  start_url TEXT,
  status TEXT NOT NULL,
  reason TEXT,
  result TEXT,
  input_tokens BIGINT NOT NULL DEFAULT 0,
  output_tokens BIGINT NOT NULL DEFAULT 0,
  total_tokens BIGINT NOT NULL DEFAULT 0,
  steps INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  finished_at TEXT,
  owner_pid INTEGER NOT NULL,
  owner_host TEXT NOT NULL,
  owner_seen_at TEXT NOT NULL
);
CREATE INDEX runs_newest_first ON runs (created_at DESC, id DESC);
CREATE INDEX runs_unfinished ON runs (status) WHERE status IN ('running', 'queued');
CREATE TABLE events (
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  type TEXT NOT NULL,
  data TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
);
CREATE TABLE replies (
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  kind TEXT NOT NULL,
  reply_id TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (run_id, kind, reply_id)
);
CREATE TABLE queue (
  position BIGSERIAL PRIMARY KEY,
  run_id TEXT NOT NULL UNIQUE REFERENCES runs (id) ON DELETE CASCADE,
  request TEXT NOT NULL
);
`,
  },
  {
    // SQLite's schema 3: each run's cached input tokens and cost in USD; NULL is unknown.
    version: 2,
    sql: `
ALTER TABLE runs ADD COLUMN cached_input_tokens BIGINT;
ALTER TABLE runs ADD COLUMN cost_usd DOUBLE PRECISION;
`,
  },
  {
    // SQLite's schema 4: a sub-agent's run records the run that dispatched it.
    version: 3,
    sql: `
ALTER TABLE runs ADD COLUMN parent_run_id TEXT;
CREATE INDEX runs_by_parent ON runs (parent_run_id) WHERE parent_run_id IS NOT NULL;
`,
  },
]

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
