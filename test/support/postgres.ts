import { randomBytes } from 'node:crypto'
import postgres from 'postgres'
import { inject } from 'vitest'

/** The throwaway cluster's admin URL ('' when PostgreSQL is missing outside CI: those tests skip). */
export const postgresAdminUrl = inject('postgresAdminUrl')

/** Whether the Postgres tests run here; when false they are skipped (globalSetup said so loudly). */
export const hasPostgres = postgresAdminUrl !== ''

/** A fresh, empty database in the cluster: one per test file (or per test), so files never share rows. */
export async function createTestDatabase(prefix = 'sextant'): Promise<string> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`
  const admin = postgres(postgresAdminUrl, { max: 1, onnotice: () => {} })
  try {
    await admin.unsafe(`CREATE DATABASE ${name}`)
  } finally {
    await admin.end()
  }
  const url = new URL(postgresAdminUrl)
  url.pathname = `/${name}`
  return url.href
}
