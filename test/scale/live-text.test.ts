import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { AgentEvent } from '../../src/events/events.ts'
import { PostgresRunStore } from '../../src/store/postgres/postgres-store.ts'
import { readSse, runIdOf, type SseMessage } from '../server/support.ts'
import {
  actionTurn,
  doneTurn,
  type FakeOpenAI,
  scriptedTurns,
  startFakeOpenAI,
} from '../support/models/fake-openai.ts'
import { createTestDatabase, hasPostgres } from '../support/postgres.ts'
import { until } from '../support/until.ts'
import { type ChildServer, startChildServer } from './cluster-support.ts'

// The model's text as it streams (text_delta, never stored) reaches a follower
// on a server that does not run the run: it reads the owner's own stream.

const token = 'live-text-test-token-0123456789ab'
const auth = { authorization: `Bearer ${token}` }
const thought = 'First I look at the page, then I report what it says.'
let fake: FakeOpenAI
let database: string
const turns = scriptedTurns(() => doneTurn('Nothing left to do.'))
let servers: ChildServer[] = []

describe.skipIf(!hasPostgres)('model text, live, on another server', () => {
  beforeAll(async () => {
    fake = await startFakeOpenAI({ fallback: turns.fallback })
    database = await createTestDatabase('live_text')
    for (const _ of ['a', 'b']) {
      servers.push(
        await startChildServer({
          SEXTANT_DB: database,
          SEXTANT_API_TOKEN: token,
          SEXTANT_BASE_URL: fake.baseUrl,
          SEXTANT_MODEL: 'fake/agent-model',
          SEXTANT_HEARTBEAT_MS: '200',
          SEXTANT_LEASE_MS: '30000',
        }),
      )
    }
  }, 180_000)
  afterAll(async () => {
    for (const server of servers) await server.close()
    servers = []
    fake?.close()
  })

  test('a follower on B hears the text_delta frames of a run on A, between the stored events where A had them; the store keeps none', async () => {
    const [owner, other] = servers as [ChildServer, ChildServer]
    const task = turns.script(
      'Ask first, then think aloud.',
      actionTurn('execute_javascript', { script: 'return 1' }),
      doneTurn('Reported.', true, { text: thought, textPieces: 8, chunkDelayMs: 30 }),
    )
    const posted = await fetch(`${owner.url}/v1/runs`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ task }),
    })
    const id = runIdOf(posted)
    void posted.body?.cancel()

    const heard: SseMessage[] = []
    const following = readSse(
      await fetch(`${other.url}/v1/runs/${id}/events`, { headers: auth }),
      (message) => {
        heard.push(message)
        return message.event === 'done'
      },
    )
    const asked = await until(
      () => heard.map((message) => message.data).find((event) => event.type === 'confirmation_required'),
      { what: 'the confirmation, on B' },
    )
    // Answered on B too, once its follower reads A's stream (it started on its first read of the running run).
    const approved = await fetch(
      `${other.url}/v1/runs/${id}/confirmations/${asked.type === 'confirmation_required' ? asked.callId : ''}`,
      { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{"approve":true}' },
    )
    expect(approved.status).toBe(200)
    await following

    // Between servers only: without the fleet's relay secret the owner's stream is refused.
    for (const headers of [auth, { 'x-sextant-relay': 'not-the-secret' }]) {
      const refused = await fetch(`${owner.url}/internal/runs/${id}/text`, { headers })
      expect(refused.status).toBe(403)
    }

    const events = heard.map((message) => message.data as AgentEvent)
    const deltas = events.filter((event) => event.type === 'text_delta')
    expect(deltas.length).toBeGreaterThan(1)
    expect(
      deltas
        .filter((event) => event.type === 'text_delta' && event.field === 'text')
        .map((event) => (event.type === 'text_delta' ? event.text : ''))
        .join(''),
    ).toBe(thought)
    // Each delta right after the stored event whose seq it carries, and before the next stored one.
    let last = -1
    for (const [index, message] of heard.entries()) {
      const event = message.data as AgentEvent
      if (event.type === 'text_delta') {
        expect(message.id, 'a delta frame has no id').toBeUndefined()
        expect(event.seq, `delta at ${index}`).toBe(last)
      } else last = event.seq
    }
    const reflection = events.findLastIndex((event) => event.type === 'reflection')
    expect(events.findLastIndex((event) => event.type === 'text_delta')).toBeLessThan(reflection)

    // The store keeps what it kept before: no delta, seq gapless, the text whole in the reflection.
    const store = new PostgresRunStore(database, { maxConnections: 1 })
    try {
      const stored = await store.events(id)
      expect(stored.map((event) => event.seq)).toEqual(stored.map((_, index) => index))
      expect(stored.some((event) => event.type === 'text_delta')).toBe(false)
      expect(stored.filter((event) => event.type !== 'text_delta')).toEqual(
        events.filter((event) => event.type !== 'text_delta'),
      )
      expect(stored.find((event) => event.type === 'reflection' && event.text === thought)).toBeDefined()
    } finally {
      await store.close()
    }
  })
})
