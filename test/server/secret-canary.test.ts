import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import type { IncomingMessage } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { AgentEvent } from '../../src/events/events.ts'
import { SqliteRunStore } from '../../src/store/sqlite-store.ts'
import {
  actionTurn,
  doneTurn,
  type FakeOpenAI,
  type FakeRequest,
  type FakeTurn,
  promptText,
  refInView,
  startFakeOpenAI,
} from '../support/models/fake-openai.ts'
import { type PageServer, startPageServer } from '../support/page-server.ts'
import { events, type Harness, json, postRun, readSse, runIdOf, startHarness } from './support.ts'

// The end-to-end canary: a secret typed into a real login form in real Chromium, through the HTTP
// API, must reach the form and nothing else — not the SSE stream, the database file (WAL included),
// the debug log, the model's requests, or the run views.

/** Characters every written form differs on: space, !, /, non-ASCII, &, a quote. */
const canary = 'Canary!pa ss/wörd&"9x'
const plainPassword = 'hunter2-plain-typed'

/** Every form the value could be written in. */
function forms(value: string): string[] {
  return [
    value,
    encodeURIComponent(value),
    new URLSearchParams({ v: value }).toString().slice(2),
    JSON.stringify(value).slice(1, -1),
  ]
}

function expectAbsent(where: string, text: string, value: string): void {
  for (const form of forms(value)) expect(text.includes(form), `${where} holds ${form}`).toBe(false)
}

const loginPage = `<!doctype html><meta charset="utf-8"><title>Sign in</title>
<form method="post" action="/login">
  <label>User <input name="user"></label>
  <label>Password <input type="password" name="password"></label>
  <button>Sign in</button>
</form>`

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] ?? c)
}

let fake: FakeOpenAI
let harness: Harness
let site: PageServer
let dir: string
let dbPath: string
const posted: URLSearchParams[] = []

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
  })
}

beforeAll(async () => {
  fake = await startFakeOpenAI({ fallback: scriptedLogin })
  site = await startPageServer({
    pages: {
      // Echoes what was typed: the page view the model receives must show the placeholder.
      '/welcome': (url) => {
        const password = url.searchParams.get('pw') ?? ''
        return `<!doctype html><title>Hi ${escapeHtml(password)}</title><h1>Welcome</h1><p>Your password is ${escapeHtml(password)}</p>`
      },
    },
    routes: {
      '/login': (request, response) => {
        if (request.method !== 'POST')
          return void response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(loginPage)
        void readBody(request).then((body) => {
          const form = new URLSearchParams(body)
          posted.push(form)
          const next = `/welcome?${new URLSearchParams({ pw: form.get('password') ?? '' })}`
          response.writeHead(303, { location: next }).end()
        })
      },
    },
  })
  dir = mkdtempSync(join(tmpdir(), 'sextant-secrets-'))
  dbPath = join(dir, 'runs.db')
  harness = await startHarness({ fake, browser: 'chromium', store: new SqliteRunStore(dbPath) })
})

afterAll(async () => {
  await harness?.close()
  await site?.close()
  await fake?.close()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

/** The model's side of each run, chosen by the task and the page it sees. */
function scriptedLogin(request: FakeRequest): FakeTurn {
  const text = promptText(request)
  const typed = (text.match(/Typed /g) ?? []).length
  if (text.includes('Scoped elsewhere')) {
    if (text.includes('Did not type')) return doneTurn('Refused, as expected.', false)
    return actionTurn('type', { ref: refInView(request, 'textbox "Password"'), text: '<secret>pw</secret>' })
  }
  if (text.includes('Plain password')) {
    if (typed === 0)
      return actionTurn('type', { ref: refInView(request, 'textbox "Password"'), text: plainPassword })
    return doneTurn('Typed it.')
  }
  if (text.includes('Your password is')) return doneTurn('Logged in.')
  if (typed === 0) return actionTurn('type', { ref: refInView(request, 'textbox "User"'), text: 'ada' })
  return actionTurn('type', {
    ref: refInView(request, 'textbox "Password"'),
    text: '<secret>pw</secret>',
    submit: true,
  })
}

async function fetchText(path: string): Promise<string> {
  const response = await fetch(`${harness.url}${path}`)
  expect(response.status).toBe(200)
  return response.text()
}

describe('secrets', () => {
  test('a secret reaches the form and nowhere else: SSE, database and WAL, debug log, model requests, run views', async () => {
    const response = await postRun(harness.url, {
      task: `Sign in as ada with the password ${canary}.`,
      startUrl: `${site.url}/login`,
      secrets: { pw: { value: canary, domains: ['127.0.0.1'] } },
    })
    expect(response.status).toBe(200)
    const id = runIdOf(response)
    const raw = await response.text()
    const list = raw
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as AgentEvent)
    expect(list.at(-1), JSON.stringify(list, null, 1)).toMatchObject({
      type: 'done',
      reason: 'model_stop',
      result: { success: true },
    })

    // The form received the real value.
    expect(posted.map((form) => form.get('password'))).toEqual([canary])
    expect(posted[0]?.get('user')).toBe('ada')

    // The model was told about the placeholder, and read it where the page echoes the value.
    const requests = fake.requests.slice(-4)
    expect(JSON.stringify(requests[0]?.body)).toContain('<secret>pw</secret>')
    expect(promptText(requests.at(-1) as FakeRequest)).toContain('Your password is <secret>pw</secret>')
    expect(promptText(requests[0] as FakeRequest)).toContain(
      'Sign in as ada with the password <secret>pw</secret>.',
    )

    expectAbsent('the SSE stream', raw, canary)
    expectAbsent('the model requests', JSON.stringify(fake.requests), canary)
    expectAbsent('GET /v1/runs', await fetchText('/v1/runs'), canary)
    expectAbsent('GET /v1/runs/:id', await fetchText(`/v1/runs/${id}`), canary)
    expectAbsent('GET /v1/runs/:id/events', await fetchText(`/v1/runs/${id}/events`), canary)
    expect(JSON.parse(await fetchText(`/v1/runs/${id}`)).task).toBe(
      'Sign in as ada with the password <secret>pw</secret>.',
    )
    expectAbsent('the debug log', JSON.stringify(harness.logs), canary)
    expect(harness.logs.some((line) => line.level === 20)).toBe(true)

    // The database file and its write-ahead log, read as raw bytes.
    for (const path of [dbPath, `${dbPath}-wal`]) {
      if (!existsSync(path)) continue
      expectAbsent(path, readFileSync(path).toString('latin1'), Buffer.from(canary).toString('latin1'))
      expectAbsent(path, readFileSync(path, 'utf8'), canary)
    }
    expect(readFileSync(`${dbPath}-wal`).length + readFileSync(dbPath).length).toBeGreaterThan(0)

    // The run's folder: each step's page view text (and screenshot) is kept there.
    const runFiles = readdirSync(join(harness.runsDir, id), { recursive: true, encoding: 'utf8' })
      .map((file) => join(harness.runsDir, id, file))
      .filter((file) => statSync(file).isFile())
    expect(runFiles.some((file) => file.endsWith('.view.txt'))).toBe(true)
    for (const file of runFiles) expectAbsent(file, readFileSync(file).toString('latin1'), canary)
  })

  test('a scoped secret is refused on another domain, and the value never reaches that page', async () => {
    const before = posted.length
    const response = await postRun(harness.url, {
      task: 'Scoped elsewhere: try to sign in.',
      startUrl: `${site.url}/login`,
      secrets: { pw: { value: canary, domains: ['login.example.com'] } },
    })
    const list = events(await readSse(response))
    const result = list.find((event) => event.type === 'tool_call_result')
    expect(result).toMatchObject({ ok: false })
    expect(result?.type === 'tool_call_result' && result.result).toMatch(
      /^Did not type into textbox 'Password'\. Refused: the secret "pw" may only be used on login\.example\.com, and this page is 127\.0\.0\.1:\d+\.$/,
    )
    expect(posted.length).toBe(before)
    expectAbsent('the SSE stream', JSON.stringify(list), canary)
  })

  test('text typed into a password field is masked in tool_call_start, history and prompts, without secrets', async () => {
    const response = await postRun(harness.url, {
      task: 'Plain password: type it.',
      startUrl: `${site.url}/login`,
    })
    const list = events(await readSse(response))
    const start = list.find((event) => event.type === 'tool_call_start')
    expect(start).toMatchObject({ tool: 'type', input: { text: '••••••' } })
    expect(list.find((event) => event.type === 'tool_call_result')).toMatchObject({
      ok: true,
      result: `Typed ${plainPassword.length} characters into textbox 'Password'.`,
    })
    const last = fake.requests.at(-1) as FakeRequest
    // The history line of the step shows the mask where the model wrote the password.
    expect(promptText(last)).toMatch(/action: \{"type":\{"ref":"\w+","text":"••••••"\}\}/)
    expectAbsent('the SSE stream', JSON.stringify(list), plainPassword)
    expectAbsent('the model requests', JSON.stringify(fake.requests), plainPassword)
    expect(await json(await fetch(`${harness.url}/v1/runs/${runIdOf(response)}`))).toMatchObject({
      status: 'completed',
    })
  })
})
