import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import postgres from 'postgres'
import { afterAll, describe, expect, test } from 'vitest'
import { PostgresRunStore } from '../../src/store/postgres/postgres-store.ts'
import { versionsOf } from '../../src/store/sql-schema.ts'
import { SqliteRunStore } from '../../src/store/sqlite-store.ts'
import { createTestDatabase, hasPostgres } from '../support/postgres.ts'

// Both stores' tables come from one list of steps (src/store/sql-schema.ts); these
// tests hold the two dialects, and every upgrade path, to the same columns.

const tempDir = mkdtempSync(join(tmpdir(), 'sextant-schema-'))
afterAll(() => rmSync(tempDir, { recursive: true, force: true }))

type Columns = Record<string, string[]>

const tables = ['runs', 'events']

function sqliteColumns(db: DatabaseSync): Columns {
  const columns: Columns = {}
  for (const table of tables) {
    columns[table] = db
      .prepare(`SELECT name FROM pragma_table_info('${table}')`)
      .all()
      .map((row) => String(row.name))
      .sort()
  }
  return columns
}

function freshSqlite(): Columns {
  const path = join(tempDir, `${Math.random().toString(36).slice(2)}.db`)
  new SqliteRunStore(path).close()
  const db = new DatabaseSync(path)
  try {
    return sqliteColumns(db)
  } finally {
    db.close()
  }
}

test('SQLite versions are numbered 1, 2, 3 … and PostgreSQL migrations too, with no gap', () => {
  for (const dialect of ['sqlite', 'postgres'] as const) {
    const numbers = versionsOf(dialect).map((step) => step.version)
    expect(numbers).toEqual(numbers.map((_, index) => index + 1))
  }
})

test.each([1, 2, 3, 4])(
  'a SQLite database of schema %i upgrades to the columns of a new one',
  async (version) => {
    const path = join(tempDir, `schema-${version}.db`)
    const old = new DatabaseSync(path)
    for (const step of versionsOf('sqlite')) if (step.version <= version) old.exec(step.sql)
    old.exec(`PRAGMA user_version = ${version}`)
    old.close()
    await new SqliteRunStore(path).close()
    const upgraded = new DatabaseSync(path)
    expect(sqliteColumns(upgraded)).toEqual(freshSqlite())
    expect(Number(upgraded.prepare('PRAGMA user_version').get()?.user_version)).toBe(
      versionsOf('sqlite').at(-1)?.version,
    )
    upgraded.close()
  },
)

describe.skipIf(!hasPostgres)('PostgreSQL', () => {
  test('a new PostgreSQL database has the columns of a new SQLite one', async () => {
    const url = await createTestDatabase('schema')
    const store = new PostgresRunStore(url, { maxConnections: 1 })
    await store.ready()
    await store.close()
    const sql = postgres(url, { max: 1, onnotice: () => {} })
    try {
      const columns: Columns = {}
      for (const table of tables) {
        const rows = await sql<{ column_name: string }[]>`SELECT column_name FROM information_schema.columns
          WHERE table_schema = 'public' AND table_name = ${table}`
        columns[table] = rows.map((row) => row.column_name).sort()
      }
      expect(columns).toEqual(freshSqlite())
    } finally {
      await sql.end()
    }
  })
})
