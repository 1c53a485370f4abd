import postgres from 'postgres'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { postRun, readSse, runIdOf } from '../server/support.ts'
import {
  doneTurn,
  type FakeOpenAI,
  promptText,
  scriptedTurns,
  startFakeOpenAI,
} from '../support/models/fake-openai.ts'
import { createTestDatabase, hasPostgres } from '../support/postgres.ts'
import { until } from '../support/until.ts'
import { type ClusterServer, startClusterServer } from './cluster-support.ts'

// Several followers of queued runs on one server hear their places change as
// runs are claimed and queued (priorities included), and the server reads the
// places once per move of the queue for all of them, not once per follower.

let fake: FakeOpenAI
const turns = scriptedTurns(() => doneTurn('Nothing left to do.'))

describe.skipIf(!hasPostgres)('queue positions', () => {
  let server: ClusterServer
  let listener: postgres.Sql
  let moves = 0
  let lookups = 0
  const places = new Map<string, number[]>()
  const ids = new Map<string, string>()
  const streams: Promise<unknown>[] = []

  beforeAll(async () => {
    fake = await startFakeOpenAI({ fallback: turns.fallback })
    const database = await createTestDatabase('qplaces')
    // A beat far away: between the queue's moves nothing else makes the server read the places.
    server = await startClusterServer(database, fake, {
      queue: true,
      maxRuns: 1,
      heartbeatMs: 60_000,
      leaseMs: 120_000,
    })
    // Every read of a place, whichever way the store is asked.
    const store = server.store as unknown as Record<string, unknown>
    for (const name of ['queuePosition', 'queuePositions']) {
      const method = store[name]
      if (typeof method !== 'function') continue
      store[name] = (...args: unknown[]) => {
        lookups++
        return (method as (...a: unknown[]) => unknown).apply(server.store, args)
      }
    }
    listener = postgres(database, { max: 1, onnotice: () => {} })
    await listener.listen('sextant_queue', () => {
      moves++
    })
  })
  afterAll(async () => {
    for (const id of ids.values()) await fetch(`${server.url}/v1/runs/${id}`, { method: 'DELETE' })
    await Promise.allSettled(streams)
    await listener?.end()
    await server?.close()
    fake?.close()
  })

  /** Posts a run that waits on its model once claimed, and records the places its stream hears. */
  async function post(name: string, priority?: number): Promise<void> {
    const task = turns.script(`${name}: wait.`, { hang: true })
    const response = await postRun(server.url, { task, ...(priority === undefined ? {} : { priority }) })
    expect(response.status).toBe(200)
    ids.set(name, runIdOf(response))
    places.set(name, [])
    streams.push(
      readSse(response, (message) => {
        if (message.event === 'queue_position')
          places.get(name)?.push((message.data as unknown as { position: number }).position)
        return false
      }),
    )
  }

  async function release(name: string): Promise<void> {
    expect((await fetch(`${server.url}/v1/runs/${ids.get(name)}`, { method: 'DELETE' })).status).toBe(200)
  }

  async function placesAre(expected: Record<string, number>): Promise<void> {
    await until(() => Object.entries(expected).every(([name, place]) => places.get(name)?.at(-1) === place), {
      what: `the places ${JSON.stringify(expected)}, heard ${JSON.stringify(Object.fromEntries(places))}`,
    })
  }

  test('each follower hears its place change as runs are claimed and queued, priorities first; one read per move', async () => {
    await post('holder')
    await until(() => fake.requests.some((request) => promptText(request).includes('holder: wait.')), {
      what: 'the holder to take the slot',
    })
    await post('low', -5)
    await post('normal 1')
    await post('high', 10)
    await post('normal 2')
    await placesAre({ high: 1, 'normal 1': 2, 'normal 2': 3, low: 4 })

    const before = { moves, lookups }
    await release('holder')
    await placesAre({ 'normal 1': 1, 'normal 2': 2, low: 3 })
    await post('urgent', 5)
    await placesAre({ urgent: 1, 'normal 1': 2, 'normal 2': 3, low: 4 })
    await release('high')
    await placesAre({ 'normal 1': 1, 'normal 2': 2, low: 3 })
    await release('urgent')
    await placesAre({ 'normal 2': 1, low: 2 })

    // Each follower heard each of its places once, in order.
    expect(places.get('low')?.slice(-5)).toEqual([4, 3, 4, 3, 2])
    expect(places.get('normal 2')?.slice(-5)).toEqual([3, 2, 3, 2, 1])
    // Four moves (three claims and a run queued), each heard by this test's own listener too.
    await until(() => moves - before.moves >= 4, { what: 'the four moves of the queue, heard here' })
    // Four followers, read together: once per move of the queue (and once for the run that joined it).
    expect(lookups - before.lookups).toBeLessThanOrEqual(moves - before.moves + 1)
  })
})
