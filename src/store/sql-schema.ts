/**
 * The tables of both SQL stores, written once: one list of steps in the
 * order they were released, each saying which SQLite schema version
 * (`PRAGMA user_version`) and which PostgreSQL migration (`sextant_migrations`)
 * it belongs to. Both numberings are already in released databases, so they
 * stay as they are: PostgreSQL came later and its migration 1 holds what
 * SQLite had reached by its schema 2, plus the tables only servers sharing a
 * database need (replies, queue). A step once released never changes: a new
 * column is a new step, added at the end with the next number of each.
 */

export type Dialect = 'sqlite' | 'postgres'

export interface SchemaStep {
  /** The SQLite schema version this step is part of; absent: PostgreSQL only. */
  sqlite?: number
  /** The PostgreSQL migration this step is part of; absent: SQLite only. */
  postgres?: number
  sql: (types: ColumnTypes) => string
}

/** What differs between the dialects, said once. */
export interface ColumnTypes {
  /** Token counts: SQLite's INTEGER is 64-bit already. */
  bigint: string
  /** A USD amount. */
  real: string
  /** After the events table: SQLite stores it clustered on its primary key. */
  clustered: string
  /** The index that finds running runs (SQLite's from schema 1 covers every status). */
  unfinishedIndex: string
  /** A column every run has; SQLite added it to a table with rows, where it stays NULL for the old ones. */
  requiredOnNewRows: string
}

const typesOf: Record<Dialect, ColumnTypes> = {
  sqlite: {
    bigint: 'INTEGER',
    real: 'REAL',
    clustered: ' WITHOUT ROWID',
    unfinishedIndex: 'CREATE INDEX IF NOT EXISTS runs_by_status ON runs (status);',
    requiredOnNewRows: '',
  },
  postgres: {
    bigint: 'BIGINT',
    real: 'DOUBLE PRECISION',
    clustered: '',
    unfinishedIndex:
      "CREATE INDEX IF NOT EXISTS runs_unfinished ON runs (status) WHERE status IN ('running', 'queued');",
    // Added in the same migration as the table, so no row ever lacks it.
    requiredOnNewRows: ' NOT NULL',
  },
}

export const schemaSteps: readonly SchemaStep[] = [
  {
    sqlite: 1,
    postgres: 1,
    sql: (t) => `
CREATE TABLE IF NOT EXISTS runs (
  id TEXT PRIMARY KEY,
  task TEXT NOT NULL,
  model TEXT NOT NULL,
  start_url TEXT,
  status TEXT NOT NULL,
  reason TEXT,
  result TEXT,
  input_tokens ${t.bigint} NOT NULL DEFAULT 0,
  output_tokens ${t.bigint} NOT NULL DEFAULT 0,
  total_tokens ${t.bigint} NOT NULL DEFAULT 0,
  steps INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  finished_at TEXT,
  owner_pid INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_newest_first ON runs (created_at DESC, id DESC);
${t.unfinishedIndex}
CREATE TABLE IF NOT EXISTS events (
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  type TEXT NOT NULL,
  data TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
)${t.clustered};
`,
  },
  {
    // Runs record their owner's host and heartbeat, beside its pid. SQLite's runs of schema 1
    // keep NULL: read as owned on this host, seen at their creation.
    sqlite: 2,
    postgres: 1,
    sql: (t) => `
ALTER TABLE runs ADD COLUMN owner_host TEXT${t.requiredOnNewRows};
ALTER TABLE runs ADD COLUMN owner_seen_at TEXT${t.requiredOnNewRows};
`,
  },
  {
    // Replies recorded once across servers, and the queue any server claims from.
    postgres: 1,
    sql: () => `
CREATE TABLE IF NOT EXISTS replies (
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  kind TEXT NOT NULL,
  reply_id TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (run_id, kind, reply_id)
);
CREATE TABLE IF NOT EXISTS queue (
  position BIGSERIAL PRIMARY KEY,
  run_id TEXT NOT NULL UNIQUE REFERENCES runs (id) ON DELETE CASCADE,
  request TEXT NOT NULL
);
`,
  },
  {
    // Each run's cached input tokens and cost in USD; NULL is unknown (every run before this step).
    sqlite: 3,
    postgres: 2,
    sql: (t) => `
ALTER TABLE runs ADD COLUMN cached_input_tokens ${t.bigint};
ALTER TABLE runs ADD COLUMN cost_usd ${t.real};
`,
  },
  {
    // A sub-agent's run records the run that dispatched it; every run before this step is top-level.
    sqlite: 4,
    postgres: 3,
    sql: () => `
ALTER TABLE runs ADD COLUMN parent_run_id TEXT;
CREATE INDEX IF NOT EXISTS runs_by_parent ON runs (parent_run_id) WHERE parent_run_id IS NOT NULL;
`,
  },
  {
    // Profiles: saved browser state, sealed with AES-256-GCM before it gets here (`data`); what the
    // listing shows (domains, size, times) is kept beside it in clear, never a value.
    sqlite: 5,
    postgres: 4,
    sql: () => `
CREATE TABLE IF NOT EXISTS profiles (
  name TEXT PRIMARY KEY,
  data TEXT NOT NULL,
  domains TEXT NOT NULL,
  size INTEGER NOT NULL,
  updated_at TEXT NOT NULL,
  last_run_id TEXT
);
`,
  },
  {
    // The owner's random id, beside its pid and host, which two processes may share (pid 1 in two
    // containers). Runs before this step keep NULL: no process of this Sextant is their owner.
    sqlite: 6,
    postgres: 5,
    sql: () => `
ALTER TABLE runs ADD COLUMN owner_id TEXT;
`,
  },
  {
    // The queue pushes back: claimed by priority (higher first), first come within one; a run may
    // wait until expires_at, on the database's clock.
    postgres: 5,
    sql: () => `
ALTER TABLE queue ADD COLUMN priority INTEGER NOT NULL DEFAULT 0;
ALTER TABLE queue ADD COLUMN timeout_ms INTEGER;
ALTER TABLE queue ADD COLUMN expires_at TIMESTAMPTZ;
CREATE INDEX IF NOT EXISTS queue_claim_order ON queue (priority DESC, position);
CREATE INDEX IF NOT EXISTS queue_expiry ON queue (expires_at) WHERE expires_at IS NOT NULL;
`,
  },
  {
    // Each run's owner's internal address, for the routes another server relays to it (live frames,
    // takeover, input). SQLite keeps the column too (one process, never relayed): both stores keep one schema.
    sqlite: 7,
    postgres: 6,
    sql: () => `
ALTER TABLE runs ADD COLUMN owner_url TEXT;
`,
  },
  {
    // Steps' screenshots and page views, kept in the shared store so any server serves them after the
    // server that made them is gone (SQLite keeps them as files).
    postgres: 6,
    sql: () => `
CREATE TABLE IF NOT EXISTS step_files (
  run_id TEXT NOT NULL,
  step INTEGER NOT NULL,
  kind TEXT NOT NULL,
  data BYTEA NOT NULL,
  PRIMARY KEY (run_id, step, kind)
);
`,
  },
  {
    // Runs' downloads, kept in the shared store for the same reason as step files (SQLite keeps them as files).
    postgres: 7,
    sql: () => `
CREATE TABLE IF NOT EXISTS downloads (
  run_id TEXT NOT NULL,
  name TEXT NOT NULL,
  bytes BIGINT NOT NULL,
  data BYTEA NOT NULL,
  kept_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (run_id, name)
);
`,
  },
  {
    // Webhooks: the URL a run's request named (whichever server ends the run delivers it, the sweep
    // included), and each attempt at delivering one, as GET /v1/runs/:id shows them.
    sqlite: 8,
    postgres: 8,
    sql: () => `
ALTER TABLE runs ADD COLUMN webhook TEXT;
CREATE TABLE IF NOT EXISTS webhook_attempts (
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  webhook_id TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  type TEXT NOT NULL,
  at TEXT NOT NULL,
  status INTEGER,
  error TEXT,
  duration_ms INTEGER NOT NULL,
  delivered INTEGER NOT NULL,
  PRIMARY KEY (run_id, webhook_id, attempt)
);
`,
  },
  {
    // Runs' artifacts (trace, videos, HAR), kept in the shared store as downloads are (SQLite keeps them as files).
    postgres: 9,
    sql: () => `
CREATE TABLE IF NOT EXISTS artifacts (
  run_id TEXT NOT NULL,
  name TEXT NOT NULL,
  bytes BIGINT NOT NULL,
  data BYTEA NOT NULL,
  kept_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (run_id, name)
);
`,
  },
]

/** One dialect's numbered versions, in order, each with the SQL that brings a database to it. */
export function versionsOf(dialect: Dialect): { version: number; sql: string }[] {
  const versions: { version: number; sql: string }[] = []
  for (const step of schemaSteps) {
    const version = step[dialect]
    if (version === undefined) continue
    const sql = step.sql(typesOf[dialect])
    const last = versions.at(-1)
    if (last?.version === version) last.sql += sql
    else versions.push({ version, sql })
  }
  return versions
}
