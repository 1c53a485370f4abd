import type { Fragment, Sql, TransactionSql } from 'postgres'
import type { RunOwner } from '../owner.ts'

/**
 * Leases among servers sharing PostgreSQL are written and judged on one
 * clock, the database's: a server whose own clock runs behind would
 * otherwise renew its lease in the past and lose its runs, and one running
 * ahead would keep a dead server's runs alive. Times stay ISO text, as every
 * other time in the store.
 */

/** The database's `now()` as an ISO time, like JavaScript's toISOString. */
export function dbNow(sql: Sql | TransactionSql): Fragment {
  return sql.unsafe(`to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`)
}

/** Milliseconds from an ISO time column to the database's `now()`. */
export function msSince(sql: Sql | TransactionSql, column: 'owner_seen_at'): Fragment {
  return sql.unsafe(`(extract(epoch FROM now() - ${column}::timestamptz) * 1000)::float8`)
}

/** The rows `owner` owns: its pid, its host and its id. */
export function ownedBy(sql: Sql | TransactionSql, owner: RunOwner): Fragment {
  return sql`owner_pid = ${owner.pid} AND owner_host = ${owner.host} AND owner_id = ${owner.id}`
}
