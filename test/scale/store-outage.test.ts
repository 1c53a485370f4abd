import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { runAgent } from '../../src/agent/loop.ts'
import { type AgentEvent, isLiveOnly } from '../../src/events/events.ts'
import { backlogText } from '../../src/server/runs/run-ending.ts'
import { startServer } from '../../src/server/server.ts'
import { SqliteRunStore } from '../../src/store/sqlite-store.ts'
import { capturingLogger, events, postRun, readSse, runIdOf } from '../server/support.ts'
import {
  actionTurn,
  doneTurn,
  type FakeOpenAI,
  promptText,
  startFakeOpenAI,
} from '../support/models/fake-openai.ts'
import { hasPostgres } from '../support/postgres.ts'
import { type Cluster, startCluster } from '../support/postgres-cluster.ts'
import { findPostgresBin } from '../support/suite/test-tools.ts'
import { until } from '../support/until.ts'
import { type ClusterServer, startClusterServer } from './cluster-support.ts'

// The store goes away while a run is live. PostgreSQL stops (as a crash
// would) and comes back on the same port and data: every event the client saw
// live is in the store afterwards, in order, without a gap (a cluster of its
// own: the shared one serves the other test files meanwhile). A SQLite file
// stays locked until the run's buffer overflows: the run ends failed, and
// still nothing it streamed is lost.

const task = 'Wait three times, then finish.'
let fake: FakeOpenAI
let cluster: Cluster
let server: ClusterServer

function requestsForTask(): number {
  return fake.requests.filter((request) => promptText(request).includes(task)).length
}

function metric(text: string, name: string): number {
  const line = text.split('\n').find((row) => row.startsWith(`${name} `))
  return Number(line?.split(' ')[1] ?? Number.NaN)
}

describe.skipIf(!hasPostgres)('a store that restarts under a live run', () => {
  beforeAll(async () => {
    const bin = findPostgresBin()
    if (!bin) throw new Error('PostgreSQL binaries vanished')
    // Durable commits: a crash loses no write the store acknowledged, as in production.
    cluster = await startCluster(bin, { durable: true })
    fake = await startFakeOpenAI()
    fake.enqueue(
      actionTurn('wait', { seconds: 1 }),
      actionTurn('wait', { seconds: 1 }),
      actionTurn('wait', { seconds: 1 }),
      doneTurn('Waited.'),
    )
    server = await startClusterServer(cluster.url, fake)
  })
  afterAll(async () => {
    await server?.close()
    await fake?.close()
    cluster?.stop()
  })

  test('every event a client saw live is stored once PostgreSQL is back, seq gapless; the outage is logged and counted', async () => {
    const posted = await postRun(server.url, { task })
    expect(posted.status).toBe(200)
    const id = runIdOf(posted)
    const streaming = readSse(posted)

    await until(() => requestsForTask() >= 1, { what: 'the first model call' })
    cluster.down()
    // The run goes on meanwhile: its events reach the client, and wait for the store.
    await until(() => requestsForTask() >= 3, { what: 'two more steps during the outage' })
    await until(() => server.logs.some((line) => String(line.msg).startsWith('cannot store events')))
    cluster.up()

    // The model's text as it streamed is live-only: the store has the rest.
    const streamed: AgentEvent[] = events(await streaming).filter((event) => !isLiveOnly(event))
    expect(streamed.at(-1)).toMatchObject({ type: 'done', reason: 'model_stop' })
    const stored = await until(
      async () => {
        const list = await server.store.events(id).catch(() => [])
        return list.length === streamed.length && list
      },
      { what: 'every streamed event in the store' },
    )
    expect(stored).toEqual(streamed)
    expect(stored.map((event) => event.seq)).toEqual(stored.map((_, index) => index))
    expect((await server.store.getRun(id))?.status).toBe('completed')

    expect(server.logs.some((line) => String(line.msg).startsWith('storing events again'))).toBe(true)
    const metrics = await (await fetch(`${server.url}/metrics`)).text()
    expect(metric(metrics, 'sextant_store_outages_total')).toBe(1)
    expect(metric(metrics, 'sextant_store_recoveries_total')).toBe(1)
    expect(metric(metrics, 'sextant_store_write_retries_total')).toBeGreaterThan(0)
  })
})

describe('a SQLite file another process holds locked under a live run', () => {
  test('past the bound the run is stopped and ends failed, saying why; every event it streamed is stored once the lock is gone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sextant-locked-'))
    const path = join(dir, 'sextant.db')
    // Writes fail fast while the lock is held, instead of blocking the event loop for 5 s each.
    const store = new SqliteRunStore(path, { busyTimeoutMs: 20 })
    const locker = new DatabaseSync(path)
    const model = await startFakeOpenAI()
    model.enqueue(...Array.from({ length: 8 }, () => actionTurn('wait', { seconds: 1 })), doneTurn('Waited.'))
    const { log, logs } = capturingLogger()
    const server = await startServer({
      config: {
        host: '127.0.0.1',
        port: 0,
        maxRuns: 1,
        maxTurns: 10,
        model: 'fake/agent-model',
        baseUrl: model.baseUrl,
      },
      store,
      browser: null,
      runAgent,
      log,
      // More than one step's events, fewer than the run's.
      maxBufferedEvents: 20,
    })
    try {
      const posted = await postRun(server.url, { task: 'Wait a while.' })
      const id = runIdOf(posted)
      // Locked as soon as the run is stored: every event after it waits for the store.
      locker.exec('BEGIN IMMEDIATE')
      const streaming = readSse(posted)
      await until(() =>
        logs.some((line) => line.msg === 'too many events wait for the store: the run is stopped'),
      )
      await until(() => server.manager.get(id)?.isDone, { what: 'the stopped run to end' })
      locker.exec('ROLLBACK')

      const streamed = events(await streaming).filter((event) => !isLiveOnly(event))
      expect(streamed.at(-1)).toMatchObject({
        type: 'done',
        reason: 'error',
        result: { success: false, text: backlogText },
      })
      const stored = await store.events(id)
      expect(stored).toEqual(streamed)
      expect(stored.map((event) => event.seq)).toEqual(stored.map((_, index) => index))
      expect(await store.getRun(id)).toMatchObject({ status: 'failed', reason: 'error' })
      const metrics = await (await fetch(`${server.url}/metrics`)).text()
      expect(metric(metrics, 'sextant_store_overflow_runs_total')).toBe(1)
      expect(metric(metrics, 'sextant_store_recoveries_total')).toBe(1)
    } finally {
      await server.close()
      await model.close()
      locker.close()
      await store.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
