import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { events, json, postRun, readSse } from '../server/support.ts'
import { doneTurn, type FakeOpenAI, scriptedTurns, startFakeOpenAI } from '../support/models/fake-openai.ts'
import { createTestDatabase, hasPostgres } from '../support/postgres.ts'
import { type ClusterServer, startClusterServer } from './cluster-support.ts'

// Profiles live in the shared store, so every server sharing it must seal and open them with one key.

let fake: FakeOpenAI
const turns = scriptedTurns(() => doneTurn('Nothing left to do.'))
const storageState = {
  cookies: [{ name: 'session', value: 'shared-session', domain: 'example.com', path: '/', httpOnly: true }],
  origins: [],
}

function putProfile(server: ClusterServer, name: string): Promise<Response> {
  return fetch(`${server.url}/v1/profiles/${name}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(storageState),
  })
}

describe.skipIf(!hasPostgres)('profiles on a shared PostgreSQL store', () => {
  beforeAll(async () => {
    fake = await startFakeOpenAI({ fallback: turns.fallback })
  })
  afterAll(() => fake.close())

  test('with one SEXTANT_PROFILE_KEY, a profile imported on A is opened by a run and an export on B', async () => {
    const database = await createTestDatabase('profiles')
    const profileKey = randomBytes(32).toString('hex')
    const a = await startClusterServer(database, fake, { profileKey })
    const b = await startClusterServer(database, fake, { profileKey, profileExport: true })
    try {
      expect((await putProfile(a, 'shared')).status).toBe(200)
      expect(await json(await fetch(`${b.url}/v1/profiles/shared/export`))).toEqual({
        cookies: [expect.objectContaining({ name: 'session', value: 'shared-session' })],
        origins: [],
      })
      const task = turns.script('Use the shared profile.', doneTurn('Signed in.'))
      const run = events(await readSse(await postRun(b.url, { task, profile: 'shared' })))
      expect(run.at(-1)).toMatchObject({ type: 'done', reason: 'model_stop' })
    } finally {
      await a.close()
      await b.close()
    }
  })

  test('without SEXTANT_PROFILE_KEY a profile run or import is refused (409), saying what to set', async () => {
    const database = await createTestDatabase('nokey')
    const server = await startClusterServer(database, fake)
    try {
      const put = await putProfile(server, 'lonely')
      expect(put.status).toBe(409)
      const refusal = await json<{ error: { code: string; message: string } }>(put)
      expect(refusal.error.code).toBe('profile_key_required')
      expect(refusal.error.message).toMatch(/set SEXTANT_PROFILE_KEY to the same 32-byte key on each/)

      const run = await postRun(server.url, { task: 'Use a profile.', profile: 'lonely' })
      expect(run.status).toBe(409)
      expect(await json(run)).toEqual(refusal)
      // A run without a profile is none of this.
      const plain = await postRun(server.url, { task: turns.script('No profile.', doneTurn('Fine.')) })
      expect(events(await readSse(plain)).at(-1)).toMatchObject({ type: 'done', reason: 'model_stop' })
      expect((await fetch(`${server.url}/v1/runs?limit=5`)).status).toBe(200)
    } finally {
      await server.close()
    }
  })
})
