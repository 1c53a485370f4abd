import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { AgentEvent } from '../../src/events/events.ts'
import { events, postRun, readSse, runIdOf } from '../http/support.ts'
import { actionTurn, doneTurn, type FakeOpenAI, promptText, startFakeOpenAI } from '../support/fake-openai.ts'
import { hasPostgres } from '../support/postgres.ts'
import { type Cluster, findPostgresBin, startCluster } from '../support/postgres-cluster.ts'
import { until } from '../support/until.ts'
import { type ClusterServer, startClusterServer } from './cluster-support.ts'

// PostgreSQL stops (as a crash would) while a run is live, and comes back on
// the same port and data: every event the client saw live is in the store
// afterwards, in order, without a gap. A cluster of its own: the shared one
// serves the other test files meanwhile.

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
    cluster = await startCluster(bin)
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

    const streamed: AgentEvent[] = events(await streaming)
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
