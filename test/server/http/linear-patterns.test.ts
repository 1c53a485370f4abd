import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import type { AgentEvent } from '../../../src/events/events.ts'
import { type Cli, startCli } from '../../cli/support.ts'
import {
  agentOutput,
  type FakeOpenAI,
  type FakeTurn,
  startFakeOpenAI,
} from '../../support/models/fake-openai.ts'
import { readSse } from '../support.ts'

// A caller's output schema with a pattern that backtracks exponentially on JavaScript's engine,
// and the model's data that triggers it: the real server (its own process) must keep answering
// /healthz while it checks that data. On the old engine the check held the event loop for minutes.

const pattern = '^([A-Za-z]+\\s?)+$'
const hostile = `${'A'.repeat(31)}!`

let fake: FakeOpenAI
let server: Cli
let url: string
let dir: string

function doneWith(name: string, delayMs = 0): FakeTurn {
  return {
    output: agentOutput({ done: { text: 'Read the name.', success: true, data: { name } } }, 'Report.'),
    delayMs,
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sextant-patterns-'))
  fake = await startFakeOpenAI({
    // The first answer is the hostile data; once told it does not match, a plain name (a second late:
    // the window between the two answers, when the check runs, is never too short to be polled in).
    fallback: (request) =>
      JSON.stringify(request.body.messages).includes('must match pattern')
        ? doneWith('Ada Lovelace', 1000)
        : doneWith(hostile),
  })
  server = startCli(['serve', '--port', '0'], {
    SEXTANT_MODEL: 'fake/pattern-model',
    SEXTANT_BASE_URL: fake.baseUrl,
    SEXTANT_DB: join(dir, 'serve.db'),
    SEXTANT_RUNS_DIR: join(dir, 'runs'),
  })
  const listening = /listening on (http:\/\/\S+)/.exec(
    await server.waitFor(/listening on http:\/\/\S+\n/, 'stderr'),
  )
  url = listening?.[1] ?? ''
}, 60_000)

afterAll(async () => {
  server?.child.kill('SIGTERM')
  // A server whose event loop is held (the old engine) cannot exit on SIGTERM.
  const stuck = setTimeout(() => server?.child.kill('SIGKILL'), 10_000)
  await server?.exited
  clearTimeout(stuck)
  await fake?.close()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

test('/healthz answers while the model data is checked against a backtracking pattern', async () => {
  const answers: number[] = []
  let polling = true
  const poll = (async () => {
    while (polling) {
      const response = await fetch(`${url}/healthz`).catch(() => undefined)
      if (response?.ok) answers.push(fake.answered.length)
      await response?.body?.cancel()
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  })()
  const response = await fetch(`${url}/v1/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      task: 'Read the name.',
      output: { type: 'object', properties: { name: { type: 'string', pattern } }, required: ['name'] },
    }),
  })
  expect(response.status).toBe(200)
  const list = (await readSse(response)).map((message) => message.data as AgentEvent)
  polling = false
  await poll
  // The run went through the hostile data (refused, the model told why) and ended with the plain name.
  const results = list.filter((event) => event.type === 'tool_call_result')
  expect(results[0]).toMatchObject({ ok: false })
  expect(list.at(-1)).toMatchObject({
    type: 'done',
    result: { success: true, data: { name: 'Ada Lovelace' } },
  })
  // Answered after the hostile done was sent and before the next model call's answer: while it was checked.
  expect(answers.filter((sent) => sent === 1).length).toBeGreaterThan(0)
}, 120_000)

test('a pattern the linear-time engine cannot run is a 400 naming it, at submit', async () => {
  for (const bad of ['(a)\\1', '^(?=x)']) {
    const response = await fetch(`${url}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ task: 't', output: { type: 'string', pattern: bad } }),
    })
    expect(response.status).toBe(400)
    const body = (await response.json()) as { error: { message: string } }
    expect(body.error.message).toContain(`The pattern ${JSON.stringify(bad)} cannot be used`)
  }
  const evals = await fetch(`${url}/v1/evals`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      suite: {
        tasks: [{ id: 'a', task: 't', startUrl: 'http://a.test/', check: { resultMatches: '(a)\\1' } }],
      },
    }),
  })
  expect(evals.status).toBe(400)
  expect(await evals.text()).toContain('cannot be used')
}, 60_000)
