import postgres from 'postgres'
import { runAgent } from '../src/agent/loop.ts'
import type { Logger } from '../src/log.ts'
import { startServer } from '../src/server/server.ts'
import { PostgresRunStore } from '../src/store/postgres/postgres-store.ts'
import { type FakeOpenAI, type FakeRequest, promptText } from '../test/support/models/fake-openai.ts'
import { runToDone } from './run-to-done.ts'

/** A step's reflection as a model writes it: ~80 words, streamed one token (~4 characters) a chunk. */
const memory =
  'The search results list three matching products; the second one is in stock and costs less than the first. ' +
  'I noted its price and rating. Next I will open it, check the delivery date and add it to the cart if it fits.'
const freeText = 'Let me look at the page before acting on it. '

/** The model's turn for a STORED task: four `wait` steps, then `done`, every part streamed token by token. */
export function storedTurn(request: FakeRequest, fake: FakeOpenAI) {
  const prompt = promptText(request)
  const task = /STORED \d+/.exec(prompt)?.[0] ?? ''
  const step = fake.requests.filter((other) => promptText(other).includes(task)).length
  const action = step < 5 ? { wait: { seconds: 1 } } : { done: { text: 'Stored.', success: true } }
  const output = {
    evaluation_previous_goal: 'Success: waited.',
    memory,
    next_goal: 'Wait once more.',
    action,
  }
  const argumentChars = JSON.stringify(output).length
  return {
    output,
    text: freeText,
    textPieces: Math.ceil(freeText.length / 4),
    pieces: Math.ceil(argumentChars / 4),
  }
}

export interface StoredFigures {
  steps: number
  rowsPerStep: number
  bytesPerStep: number
  textDeltaRowsPerStep: number
}

/**
 * Rows and bytes of `events` per step in PostgreSQL, for runs whose model
 * streams token by token (no browser: only the events count). Bytes are the
 * stored `data` column (pg_column_size), the rows' payload.
 */
export async function storedPerStep(
  databaseUrl: string,
  baseUrl: string,
  log: Logger,
  runs = 3,
): Promise<StoredFigures> {
  const store = new PostgresRunStore(databaseUrl)
  await store.ready()
  const config = { host: '127.0.0.1', port: 0, maxRuns: 4, maxTurns: 10, model: 'fake/bench', baseUrl }
  const server = await startServer({ config, store, browser: null, runAgent, log })
  for (let index = 0; index < runs; index++) await runToDone(server.url, `STORED ${index}`)
  await server.close()
  await store.close()
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} })
  const [row] = await sql<{ rows: string; bytes: string; deltas: string; steps: string }[]>`SELECT
      count(*)::text AS rows, coalesce(sum(pg_column_size(data)), 0)::text AS bytes,
      count(*) FILTER (WHERE type = 'text_delta')::text AS deltas,
      (SELECT coalesce(sum(steps), 0) FROM runs)::text AS steps
    FROM events`
  await sql.end()
  const steps = Number(row?.steps ?? 0)
  return {
    steps,
    rowsPerStep: Number(row?.rows ?? 0) / steps,
    bytesPerStep: Number(row?.bytes ?? 0) / steps,
    textDeltaRowsPerStep: Number(row?.deltas ?? 0) / steps,
  }
}

export function storedReport(figures: StoredFigures): string {
  return [
    `\nStored per step (PostgreSQL events; a model streaming token by token, ${figures.steps} steps of 3 runs, no browser)`,
    `  rows ${figures.rowsPerStep.toFixed(1)} (text_delta ${figures.textDeltaRowsPerStep.toFixed(1)}) · bytes ${figures.bytesPerStep.toFixed(0)}`,
  ].join('\n')
}
