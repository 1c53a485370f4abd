import type { Sql } from 'postgres'
import {
  maxStepFileBytes,
  type StepFileKind,
  type StepFileStore,
  type StepFiles,
  StepFileTooLargeError,
} from '../../util/step-files.ts'

/**
 * Step files in PostgreSQL (the `step_files` table, bytea), so every server
 * sharing the database serves every run's, after the server that made them
 * is gone. Bounded per file (maxStepFileBytes); they go with their run
 * (deleteFinishedRuns). No foreign key: a sub-agent's files may arrive before
 * its run's row, which is written in order with its events.
 */
export class PostgresStepFiles implements StepFileStore {
  readonly #db: () => Promise<Sql>

  constructor(db: () => Promise<Sql>) {
    this.#db = db
  }

  async put(runId: string, step: number, files: StepFiles): Promise<void> {
    const pageView = Buffer.from(files.pageView, 'utf8')
    if (files.screenshot.byteLength > maxStepFileBytes)
      throw new StepFileTooLargeError('screenshot', files.screenshot.byteLength)
    if (pageView.byteLength > maxStepFileBytes)
      throw new StepFileTooLargeError('page-view', pageView.byteLength)
    const sql = await this.#db()
    const screenshot = Buffer.from(files.screenshot)
    await sql`INSERT INTO step_files (run_id, step, kind, data)
      VALUES (${runId}, ${step}, 'screenshot', ${screenshot}), (${runId}, ${step}, 'page-view', ${pageView})
      ON CONFLICT (run_id, step, kind) DO UPDATE SET data = excluded.data`
  }

  async get(runId: string, step: number, kind: StepFileKind): Promise<Uint8Array | undefined> {
    const sql = await this.#db()
    const [row] = await sql<{ data: Buffer }[]>`SELECT data FROM step_files
      WHERE run_id = ${runId} AND step = ${step} AND kind = ${kind}`
    return row?.data
  }
}
