import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { AgentEvent } from '../../src/events/events.ts'
import { json, readSse, runIdOf } from '../server/support.ts'
import {
  actionTurn,
  doneTurn,
  type FakeOpenAI,
  promptText,
  scriptedTurns,
  startFakeOpenAI,
} from '../support/models/fake-openai.ts'
import { createTestDatabase, hasPostgres } from '../support/postgres.ts'
import { type RoundRobinProxy, startRoundRobinProxy } from '../support/round-robin-proxy.ts'
import { until } from '../support/until.ts'
import { type ChildServer, startChildServer } from './cluster-support.ts'

// Two servers in their own processes on one PostgreSQL, behind a round-robin
// proxy that sticks nothing to anything: every route of a run is asked on the
// server that does not run it. Pictures come from the fake browser.

const token = 'any-server-test-token-0123456789'
const auth = { authorization: `Bearer ${token}` }
let fake: FakeOpenAI
const turns = scriptedTurns(() => doneTurn('Nothing left to do.'))
const { script } = turns
const runsDir = mkdtempSync(join(tmpdir(), 'sextant-any-server-'))
let servers: ChildServer[] = []
let proxy: RoundRobinProxy

function requestsFor(task: string): number {
  return fake.requests.filter((request) => promptText(request).includes(task)).length
}

/** Through the proxy, on `where` (a backend's origin) or, with `not`, on any other backend. */
async function via(
  proxyPath: string,
  target: { on: string } | { not: string },
  init: RequestInit = {},
): Promise<Response> {
  const fits = (next: string) => ('on' in target ? next === target.on : next !== target.not)
  // Requests that land elsewhere move the round-robin on, so the next one lands where it must.
  while (!fits(proxy.next())) await (await fetch(`${proxy.url}/healthz`)).text()
  const response = await fetch(`${proxy.url}${proxyPath}`, {
    ...init,
    headers: { ...auth, 'content-type': 'application/json', ...init.headers },
  })
  expect(fits(proxy.served.at(-1) ?? '')).toBe(true)
  return response
}

describe.skipIf(!hasPostgres)('any route of a run, on any server', () => {
  beforeAll(async () => {
    fake = await startFakeOpenAI({ fallback: turns.fallback })
    const database = await createTestDatabase('any_server')
    for (const name of ['a', 'b']) {
      servers.push(
        await startChildServer({
          SEXTANT_DB: database,
          SEXTANT_API_TOKEN: token,
          SEXTANT_BASE_URL: fake.baseUrl,
          SEXTANT_MODEL: 'fake/agent-model',
          SEXTANT_HEARTBEAT_MS: '200',
          // Long enough that the killed owner's run is still its own when its routes are asked.
          SEXTANT_LEASE_MS: '30000',
          // Each its own runs folder, as separate machines have: step files live in the store.
          SEXTANT_RUNS_DIR: join(runsDir, name),
          FAKE_BROWSER_PICTURES: '1',
        }),
      )
    }
    proxy = await startRoundRobinProxy(servers.map((server) => server.url))
    // Two processes starting on a loaded machine.
  }, 180_000)
  afterAll(async () => {
    await proxy?.close()
    for (const server of servers) await server.close()
    servers = []
    fake?.close()
    rmSync(runsDir, { recursive: true, force: true })
  })

  test('events, confirmation, screenshot, page view, live frames, takeover, input, DELETE and recording, each asked on the server that does not run the run', async () => {
    const task = script(
      'Run a script after asking, then wait.',
      actionTurn('execute_javascript', { script: 'return 6 * 7' }),
      { hang: true },
    )
    const posted = await fetch(`${proxy.url}/v1/runs`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ task }),
    })
    expect(posted.status).toBe(200)
    const id = runIdOf(posted)
    const owner = proxy.served.at(-1) ?? ''
    void posted.body?.cancel()
    const other = { not: owner }

    const seen: AgentEvent[] = []
    const following = readSse(await via(`/v1/runs/${id}/events`, other), (message) => {
      seen.push(message.data)
      return false
    })
    const confirmation = await until(() => seen.find((event) => event.type === 'confirmation_required'), {
      what: 'the confirmation, followed on the other server',
    })

    // The step's picture and page view, from the store.
    const screenshot = await until(
      async () => {
        const response = await via(`/v1/runs/${id}/steps/1/screenshot`, other)
        return response.status === 200 ? new Uint8Array(await response.arrayBuffer()) : undefined
      },
      { what: "step 1's screenshot on the other server" },
    )
    expect([...screenshot.slice(0, 2)]).toEqual([0xff, 0xd8])
    const pageView = await via(`/v1/runs/${id}/steps/1/page-view`, other)
    expect(pageView.status).toBe(200)
    expect(await pageView.text()).toContain('button "Add"')

    // Live frames, relayed from the owner.
    const live = await via(`/v1/runs/${id}/live`, other)
    expect(live.status).toBe(200)
    const frames = await readFrames(live, 1)
    expect(frames[0]).toMatchObject({ width: 800, height: 600, jpeg: expect.any(String) })

    // Takeover asked for while the run waits for its approval; taken at the step's end.
    const takeover = await via(`/v1/runs/${id}/takeover`, other, { method: 'POST' })
    expect(takeover.status).toBe(200)
    const approved = await via(
      `/v1/runs/${id}/confirmations/${confirmation.type === 'confirmation_required' ? confirmation.callId : ''}`,
      other,
      {
        method: 'POST',
        body: JSON.stringify({ approve: true }),
      },
    )
    expect(approved.status).toBe(200)
    await until(() => seen.some((event) => event.type === 'takeover_started'), { what: 'the takeover' })
    const input = await via(`/v1/runs/${id}/input`, other, {
      method: 'POST',
      body: JSON.stringify({ type: 'click', x: 10, y: 20 }),
    })
    expect(input.status).toBe(200)
    expect(await json(input)).toEqual({ runId: id, type: 'click' })
    const handBack = await via(`/v1/runs/${id}/takeover`, other, { method: 'DELETE' })
    expect(handBack.status).toBe(200)
    await until(() => requestsFor(task) >= 2, { what: 'the model asked again after the hand-back' })

    const deleted = await via(`/v1/runs/${id}`, other, { method: 'DELETE' })
    expect(deleted.status).toBe(200)
    expect(await json(deleted)).toMatchObject({ id, status: 'stopped', reason: 'user_abort' })
    await following
    expect(seen.map((event) => event.type)).toEqual(
      expect.arrayContaining(['confirmation_resolved', 'takeover_started', 'takeover_ended', 'done']),
    )
    const recording = await via(`/v1/runs/${id}/recording`, other)
    expect(recording.status).toBe(200)
    expect(await json(recording)).toMatchObject({ steps: expect.any(Array) })
  })

  test('a relay without the fleet’s secret is refused; an owner that does not answer is said to be gone, a killed one’s run is ended, and its screenshots stay', {
    // It kills one of the two servers: a second try would find it gone.
    retry: 0,
  }, async () => {
    const task = script('Hang on the owner.', { hang: true })
    const posted = await via(
      '/v1/runs',
      { on: servers[0]?.url ?? '' },
      {
        method: 'POST',
        body: JSON.stringify({ task }),
      },
    )
    const id = runIdOf(posted)
    void posted.body?.cancel()
    const [ownerServer, otherServer] = servers as [ChildServer, ChildServer]
    await until(() => requestsFor(task) > 0, { what: 'the run to ask its model' })
    await until(
      async () =>
        (await fetch(`${otherServer.url}/v1/runs/${id}/steps/1/screenshot`, { headers: auth })).status ===
        200,
      { what: "the step's screenshot in the store" },
    )

    const forged = await fetch(`${ownerServer.url}/v1/runs/${id}/live`, {
      headers: { ...auth, 'x-sextant-relay': 'not-the-secret' },
    })
    expect(forged.status).toBe(403)

    // Stopped, the owner's process lives and its lease (30 s) holds, so the run stays its own; it takes the
    // relay's connection and never answers. (Killed, it is seen dead on this host at the other server's next
    // beat, and the run ended: which of the two a route meets would be a race.)
    const ownerPid = ownerServer.child.pid
    // A pid of 0 would signal this test's own process group.
    if (!ownerPid) throw new Error('The owner server has no pid.')
    process.kill(ownerPid, 'SIGSTOP')
    try {
      const answers = await Promise.all(
        (
          [
            ['GET', 'live'],
            ['POST', 'takeover'],
          ] as const
        ).map(async ([method, path]) => {
          const response = await fetch(`${otherServer.url}/v1/runs/${id}/${path}`, { method, headers: auth })
          return {
            path,
            status: response.status,
            body: await json<{ error: { code: string; message: string } }>(response),
          }
        }),
      )
      for (const { path, status, body } of answers) {
        expect(status, path).toBe(503)
        expect(body.error.code).toBe('owner_unreachable')
        expect(body.error.message).toMatch(/does not answer \(no answer in 5 s\)/)
      }
    } finally {
      process.kill(ownerPid, 'SIGKILL')
      await ownerServer.close()
    }

    const ended = await until(
      async () => {
        const run = await json<{ status: string; result?: { text: string } }>(
          await fetch(`${otherServer.url}/v1/runs/${id}`, { headers: auth }),
        )
        return run.status === 'running' ? undefined : run
      },
      { what: 'the killed owner’s run ended by the other server' },
    )
    expect(ended.result?.text).toMatch(/interrupted/)
    const takeover = await fetch(`${otherServer.url}/v1/runs/${id}/takeover`, {
      method: 'POST',
      headers: auth,
    })
    expect(takeover.status).toBe(409)
    const kept = await fetch(`${otherServer.url}/v1/runs/${id}/steps/1/screenshot`, { headers: auth })
    expect(kept.status).toBe(200)
  })
})

/** The first `count` frames of a live stream, then the stream is let go. */
async function readFrames(response: Response, count: number): Promise<unknown[]> {
  const frames: unknown[] = []
  const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader()
  if (!reader) throw new Error('The live stream has no body.')
  let text = ''
  while (frames.length < count) {
    const { value, done } = await reader.read()
    if (done) break
    text += value
    for (const match of text.matchAll(/event: frame\ndata: (.+)\n\n/g))
      frames.push(JSON.parse(match[1] ?? ''))
    text = text.slice(text.lastIndexOf('\n\n') + 2)
  }
  await reader.cancel()
  return frames.slice(0, count)
}
