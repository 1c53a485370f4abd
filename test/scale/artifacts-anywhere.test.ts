import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { json, runIdOf } from '../server/support.ts'
import {
  actionTurn,
  doneTurn,
  type FakeOpenAI,
  promptText,
  scriptedTurns,
  startFakeOpenAI,
} from '../support/models/fake-openai.ts'
import { createTestDatabase, hasPostgres } from '../support/postgres.ts'
import { until } from '../support/until.ts'
import { type ChildServer, startChildServer } from './cluster-support.ts'

// A run's downloads, artifacts and recording outlive the server that ran it: two servers
// in their own processes on one PostgreSQL, each with a runs folder of its
// own; the one that ran the run is killed, the other serves what it made.

const token = 'artifacts-test-token-0123456789ab'
const auth = { authorization: `Bearer ${token}` }
let fake: FakeOpenAI
const turns = scriptedTurns(() => doneTurn('Nothing left to do.'))
const runsDir = mkdtempSync(join(tmpdir(), 'sextant-artifacts-'))
let servers: ChildServer[] = []
let database = ''

function serverEnv(name: string): Record<string, string> {
  return {
    SEXTANT_DB: database,
    SEXTANT_API_TOKEN: token,
    SEXTANT_BASE_URL: fake.baseUrl,
    SEXTANT_MODEL: 'fake/agent-model',
    SEXTANT_HEARTBEAT_MS: '200',
    // Short: the killed server's run is ended by the other soon after.
    SEXTANT_LEASE_MS: '2000',
    SEXTANT_RUNS_DIR: join(runsDir, name),
  }
}

describe.skipIf(!hasPostgres)('downloads, artifacts and recordings, after their server is gone', () => {
  beforeAll(async () => {
    fake = await startFakeOpenAI({ fallback: turns.fallback })
    database = await createTestDatabase('artifacts')
    for (const name of ['a', 'b']) servers.push(await startChildServer(serverEnv(name)))
  }, 180_000)
  afterAll(async () => {
    for (const server of servers) await server.close()
    servers = []
    fake?.close()
    rmSync(runsDir, { recursive: true, force: true })
  })

  test('a run on A downloads a file; A is killed; B lists it, serves it, and serves the recording', async () => {
    const [owner, other] = servers as [ChildServer, ChildServer]
    const task = turns.script(
      'Download the report, then wait.',
      actionTurn('download_file', { name: 'report é.csv', text: 'name,total\nada,3\n' }),
      { hang: true },
    )
    const posted = await fetch(`${owner.url}/v1/runs`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ task }),
    })
    const id = runIdOf(posted)
    void posted.body?.cancel()
    // The second model call comes after the download was kept.
    await until(() => fake.requests.filter((request) => promptText(request).includes(task)).length >= 2, {
      what: 'the run to download and ask its model again',
    })

    owner.child.kill('SIGKILL')
    await owner.close()
    const ended = await until(
      async () => {
        const run = await json<{ status: string }>(
          await fetch(`${other.url}/v1/runs/${id}`, { headers: auth }),
        )
        return run.status === 'failed' && run
      },
      { what: 'the other server to end the killed server’s run' },
    )
    expect(ended).toMatchObject({ reason: 'error' })

    const list = await fetch(`${other.url}/v1/runs/${id}/downloads`, { headers: auth })
    expect(list.status).toBe(200)
    const url = `/v1/runs/${id}/downloads/${encodeURIComponent('report é.csv')}`
    expect(await json(list)).toEqual({ runId: id, downloads: [{ name: 'report é.csv', bytes: 17, url }] })
    const file = await fetch(`${other.url}${url}`, { headers: auth })
    expect(file.status).toBe(200)
    expect(file.headers.get('content-type')).toBe('application/octet-stream')
    expect(file.headers.get('content-disposition')).toBe(
      `attachment; filename="report _.csv"; filename*=UTF-8''report%20%C3%A9.csv`,
    )
    expect(await file.text()).toBe('name,total\nada,3\n')
    const missing = await fetch(`${other.url}/v1/runs/${id}/downloads/other.csv`, { headers: auth })
    expect(missing.status).toBe(404)

    const recording = await fetch(`${other.url}/v1/runs/${id}/recording`, { headers: auth })
    expect(recording.status).toBe(200)
    const steps = (await json<{ steps: { tool: string }[] }>(recording)).steps
    expect(steps.map((step) => step.tool)).toEqual(['download_file'])
  })

  test('a run on A keeps its HAR as it ends; A is killed; B lists it and serves it', async () => {
    const [, other] = servers as [ChildServer, ChildServer]
    // A was killed by the test before: a third server runs this one, and goes the same way.
    const owner = await startChildServer(serverEnv('c'))
    servers.push(owner)
    const task = turns.script('Click Add, then stop.', actionTurn('click', { ref: 'b1' }), doneTurn('Added.'))
    const posted = await fetch(`${owner.url}/v1/runs`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ task, artifacts: { har: true } }),
    })
    const id = runIdOf(posted)
    await posted.text()
    owner.child.kill('SIGKILL')
    await owner.close()

    const list = await fetch(`${other.url}/v1/runs/${id}/artifacts`, { headers: auth })
    expect(list.status).toBe(200)
    const url = `/v1/runs/${id}/artifacts/network.har`
    expect((await json<{ artifacts: unknown[] }>(list)).artifacts).toEqual([
      { name: 'network.har', kind: 'har', bytes: expect.any(Number), url },
    ])
    const file = await fetch(`${other.url}${url}`, { headers: auth })
    expect(file.status).toBe(200)
    expect(file.headers.get('content-type')).toBe('application/json')
    expect(file.headers.get('content-disposition')).toBe(`attachment; filename="${id}-network.har"`)
    expect(await json(file)).toEqual({
      log: {
        entries: [],
        pages: [
          { title: 'step 1: click button "Add"' },
          { title: 'step 2: done {"text":"Added.","success":true}' },
        ],
      },
    })
    expect((await fetch(`${other.url}/v1/runs/${id}/artifacts/trace.zip`, { headers: auth })).status).toBe(
      404,
    )
  })
})
