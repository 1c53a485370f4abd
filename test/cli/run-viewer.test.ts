import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import {
  actionTurn,
  doneTurn,
  type FakeOpenAI,
  promptText,
  startFakeOpenAI,
} from '../support/models/fake-openai.ts'
import { type PageServer, startPageServer } from '../support/page-server.ts'
import { startCli } from './support.ts'

// `sextant run` without a terminal: the model's hand_over (or a replayed one) prints the URL of a local
// viewer for the run, where a person drives the headless browser and hands back. Real CLI process, real
// Chromium, real HTTP; only the model is a fake.

/** A checkbox filling the viewport's top-left corner, so a person's click at (100, 100) ticks it. */
const checkboxPage =
  '<!doctype html><title>Are you a person?</title><style>body{margin:0}input{position:absolute;left:0;top:0;width:200px;height:200px;margin:0}</style>' +
  '<input type="checkbox" id="person" aria-label="I am a person">'

const ticked = /checkbox "I am a person"[^\n]*\[checked\]/
const viewerUrl = /http:\/\/127\.0\.0\.1:\d+\/runs\/(run_\w+)#token=([\w-]+)/

let fake: FakeOpenAI
let pages: PageServer
const dir = mkdtempSync(join(tmpdir(), 'sextant-cli-viewer-'))
const recording = join(dir, 'sign-in.json')

beforeAll(async () => {
  fake = await startFakeOpenAI({
    // After hand-back the model sees the page as the person left it.
    fallback: (request) =>
      ticked.test(promptText(request).slice(promptText(request).lastIndexOf('URL:')))
        ? doneTurn('The box is ticked.')
        : doneTurn('The box is not ticked.', false),
  })
  pages = await startPageServer({ pages: { '/': checkboxPage } })
  writeFileSync(
    recording,
    JSON.stringify({
      version: 1,
      task: 'Sign in',
      steps: [
        { step: 1, tool: 'hand_over', input: { reason: 'Approve the sign-in on your phone' } },
        { step: 2, tool: 'done', input: { text: 'Signed in.', success: true } },
      ],
    }),
  )
})
afterAll(async () => {
  await fake?.close()
  await pages?.close()
  rmSync(dir, { recursive: true, force: true })
})

const env = (): NodeJS.ProcessEnv => ({
  SEXTANT_MODEL: 'fake/cli-model',
  SEXTANT_BASE_URL: fake.baseUrl,
  SEXTANT_DB: join(dir, 'cli.db'),
  SEXTANT_RUNS_DIR: join(dir, 'runs'),
})

/** The printed viewer URL's parts: where it listens, the run, and the token its fragment carries. */
function parse(stderr: string): { origin: string; page: string; runId: string; token: string } {
  const match = viewerUrl.exec(stderr)
  if (!match?.[1] || !match[2]) throw new Error(`No viewer URL in:\n${stderr}`)
  const url = new URL(match[0])
  return { origin: url.origin, page: `${url.origin}${url.pathname}`, runId: match[1], token: match[2] }
}

/** Reads an SSE response until its text matches `until`, then lets the stream go. */
async function readUntil(response: Response, until: RegExp, stop: AbortController): Promise<string> {
  const reader = (response.body ?? new ReadableStream()).pipeThrough(new TextDecoderStream()).getReader()
  let text = ''
  while (!until.test(text)) {
    const { value, done } = await reader.read()
    if (done) break
    text += value
  }
  stop.abort()
  return text
}

describe('sextant run: the model hands over', () => {
  test('the printed URL reaches the run: its page, its events, live frames, input and hand-back', async () => {
    fake.enqueue(actionTurn('hand_over', { reason: 'Tick the box: only a person may' }))
    const cli = startCli(['run', 'Get past the person check.', '--url', `${pages.url}/`], env())
    const { origin, page, runId, token } = parse(await cli.waitFor(viewerUrl, 'stderr'))
    expect(cli.stderr()).toContain('Tick the box: only a person may')
    const auth = { authorization: `Bearer ${token}` }

    const html = await fetch(page)
    expect(html.status).toBe(200)
    expect(await html.text()).toContain(`data-run-id="${runId}"`)
    expect((await fetch(`${origin}/v1/runs/${runId}`)).status).toBe(401)
    expect(
      (await fetch(`${origin}/v1/runs/${runId}`, { headers: { authorization: 'Bearer nope' } })).status,
    ).toBe(401)
    const run = await fetch(`${origin}/v1/runs/${runId}`, { headers: auth })
    expect(await run.json()).toMatchObject({
      id: runId,
      status: 'running',
      task: 'Get past the person check.',
    })
    expect((await fetch(`${origin}/v1/runs/run_other`, { headers: auth })).status).toBe(404)

    const following = new AbortController()
    const events = await fetch(`${origin}/v1/runs/${runId}/events`, {
      headers: auth,
      signal: following.signal,
    })
    expect(await readUntil(events, /event: takeover_started/, following)).toContain('"by":"model"')

    // The run page shows each step's picture and the page view the model read.
    const picture = await fetch(`${origin}/v1/runs/${runId}/steps/1/screenshot`, { headers: auth })
    expect(picture.status).toBe(200)
    expect(picture.headers.get('content-type')).toBe('image/jpeg')
    expect([...new Uint8Array(await picture.arrayBuffer()).slice(0, 2)]).toEqual([0xff, 0xd8])
    const pageView = await fetch(`${origin}/v1/runs/${runId}/steps/1/page-view`, { headers: auth })
    expect(await pageView.text()).toContain('checkbox "I am a person"')
    expect((await fetch(`${origin}/v1/runs/${runId}/steps/1/screenshot`)).status).toBe(401)

    const watching = new AbortController()
    const live = await fetch(`${origin}/v1/runs/${runId}/live`, { headers: auth, signal: watching.signal })
    expect(live.status).toBe(200)
    const input = await fetch(`${origin}/v1/runs/${runId}/input`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'click', x: 100, y: 100 }),
    })
    expect(input.status).toBe(200)
    expect(await readUntil(live, /event: frame\ndata: \{"jpeg"/, watching)).toContain('event: frame')
    expect((await fetch(`${origin}/v1/runs/${runId}/takeover`, { method: 'DELETE' })).status).toBe(401)
    const handBack = await fetch(`${origin}/v1/runs/${runId}/takeover`, { method: 'DELETE', headers: auth })
    expect(handBack.status).toBe(200)

    expect(await cli.exited).toBe(0)
    expect(cli.stdout()).toContain('The box is ticked.')
    // The viewer closed with the run.
    await expect(fetch(page)).rejects.toThrow()
  })
})

describe('sextant replay of a hand_over, without a terminal', () => {
  test('waits for the person, who hands back in the viewer', async () => {
    const cli = startCli(['replay', recording, '--url', `${pages.url}/`, '--json'], env())
    const { origin, runId, token } = parse(await cli.waitFor(viewerUrl, 'stderr'))
    expect(cli.stderr()).toContain('Approve the sign-in on your phone')
    const handBack = await fetch(`${origin}/v1/runs/${runId}/takeover`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${token}` },
    })
    expect(handBack.status).toBe(200)
    expect(await cli.exited).toBe(0)
    expect(cli.stdout()).toContain('"type":"takeover_ended"')
  })

  test('--no-handover ends it with an error naming the step, and prints no URL', async () => {
    const cli = startCli(['replay', recording, '--url', `${pages.url}/`, '--no-handover'], env())
    expect(await cli.exited).toBe(1)
    expect(cli.stdout()).toContain(
      'The replay stopped at step 1 (hand_over: Approve the sign-in on your phone): it needs a person',
    )
    expect(cli.stderr()).not.toMatch(viewerUrl)
  })
})
