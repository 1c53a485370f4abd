import { readFile } from 'node:fs/promises'
import type { Sql } from 'postgres'
import type { DownloadEntry, DownloadStore } from '../../util/run-downloads.ts'

/**
 * Downloads in PostgreSQL (the `downloads` table, bytea), so every server
 * sharing the database serves a run's downloads after the server that ran it
 * is gone. Their size is bounded before they get here: the browser cancels a
 * download over the run's maxDownloadBytes (SEXTANT_MAX_DOWNLOAD_BYTES). They
 * go with their run (deleteFinishedRuns). No foreign key, as for step files:
 * a sub-agent's row is written in order with its events. A run's artifacts
 * (trace, videos, HAR) are kept the same way in the `artifacts` table, bounded
 * by SEXTANT_MAX_ARTIFACT_BYTES.
 */
export class PostgresDownloads implements DownloadStore {
  readonly #db: () => Promise<Sql>
  readonly #table: 'downloads' | 'artifacts'

  constructor(db: () => Promise<Sql>, table: 'downloads' | 'artifacts' = 'downloads') {
    this.#db = db
    this.#table = table
  }

  async put(runId: string, name: string, path: string): Promise<void> {
    const data = await readFile(path)
    const sql = await this.#db()
    await sql`INSERT INTO ${sql(this.#table)} (run_id, name, bytes, data) VALUES (${runId}, ${name}, ${data.byteLength}, ${data})
      ON CONFLICT (run_id, name) DO UPDATE SET bytes = excluded.bytes, data = excluded.data`
  }

  async list(runId: string): Promise<DownloadEntry[]> {
    const sql = await this.#db()
    return sql<
      DownloadEntry[]
    >`SELECT name, bytes::float8 AS bytes FROM ${sql(this.#table)} WHERE run_id = ${runId} ORDER BY kept_at, name`
  }

  async get(runId: string, name: string): Promise<Uint8Array | undefined> {
    const sql = await this.#db()
    const [row] = await sql<{ data: Buffer }[]>`SELECT data FROM ${sql(this.#table)}
      WHERE run_id = ${runId} AND name = ${name}`
    return row?.data
  }
}
