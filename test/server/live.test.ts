import { setTimeout as sleep } from 'node:timers/promises'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, expect, test } from 'vitest'
import type { LiveFrame } from '../../src/browser/session/live/screencast.ts'
import { jpegRegion, meanDifference } from '../support/jpeg-pixels.ts'
import {
  actionTurn,
  doneTurn,
  type FakeOpenAI,
  type FakeRequest,
  type FakeTurn,
  promptText,
  startFakeOpenAI,
} from '../support/models/fake-openai.ts'
import { type PageServer, startPageServer } from '../support/page-server.ts'
import { borrowBrowser } from '../support/suite/shared-browser.ts'
import { until } from '../support/until.ts'
import { type Harness, postRun, readSse, runIdOf, startHarness } from './support.ts'

// GET /v1/runs/:id/live end to end: real Chromium, the real server, the real OpenAI provider against a fake.

const token = 'live-view-test-token-0123456789'
const auth = { authorization: `Bearer ${token}` }
let fake: FakeOpenAI
let harness: Harness
let site: PageServer
let decoder: Browser
let decoderPage: Page

/** Inside the password field, in CSS pixels (frames of the 1280 px viewport are not scaled). */
const pinInside = { x: 24, y: 24, width: 412, height: 36 }
const animatedPage = `<!doctype html><meta charset="utf-8"><title>Live</title><body style="margin:0;background:#fff">
<input type="password" aria-label="PIN" value="4711-0815" style="position:absolute;left:20px;top:20px;width:420px;height:44px;box-sizing:border-box;font:28px monospace;background:#fff;border:1px solid #000;padding:0 6px">
<div id="tick" style="position:absolute;left:600px;top:300px;font:20px monospace">0</div>
<script>let n = 0; setInterval(() => { document.getElementById('tick').textContent = String(++n) }, 40)</script>
</body>`

/** The model asks a question (the run waits, its browser open), and finishes once answered. */
function holdUntilAnswered(request: FakeRequest): FakeTurn {
  if (promptText(request).includes('ANSWER-7391')) return doneTurn('Done.')
  return actionTurn('ask_user', { question: 'May I finish?' })
}

beforeAll(async () => {
  fake = await startFakeOpenAI({ fallback: holdUntilAnswered })
  site = await startPageServer({ pages: { '/': animatedPage } })
  harness = await startHarness({ fake, browser: 'chromium', config: { apiToken: token } })
  decoder = await borrowBrowser()
  decoderPage = await decoder.newPage()
})
afterAll(async () => {
  await harness?.close()
  await decoder?.close()
  await site?.close()
})

/** Starts a run that waits on its question with its page open; answers its id and how to let it finish. */
async function holdingRun(): Promise<{ id: string; finish: () => Promise<void> }> {
  const response = await postRun(harness.url, { task: 'Watch the page.', startUrl: `${site.url}/` }, auth)
  const id = runIdOf(response)
  let questionId = ''
  await readSse(response, (message) => {
    if (message.data.type === 'question') questionId = message.data.questionId
    return questionId !== ''
  })
  return {
    id,
    finish: async () => {
      const reply = await fetch(`${harness.url}/v1/runs/${id}/answers/${questionId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...auth },
        body: JSON.stringify({ answer: 'ANSWER-7391' }),
      })
      expect(reply.status).toBe(200)
      await until(() => harness.server.manager.get(id) === undefined, { what: 'the run to end' })
    },
  }
}

async function metric(name: string): Promise<number> {
  const text = await (await fetch(`${harness.url}/metrics`, { headers: auth })).text()
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${name} `))
  return Number(line?.split(' ')[1] ?? Number.NaN)
}

function watchLive(id: string, frames: LiveFrame[], wanted: number) {
  return fetch(`${harness.url}/v1/runs/${id}/live`, { headers: auth }).then(async (response) => {
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toContain('text/event-stream')
    return readSse(response, (message) => {
      expect(message.event).toBe('frame')
      frames.push(message.data as unknown as LiveFrame)
      return frames.length >= wanted
    })
  })
}

test('frames come while someone watches, masked; none once the last watcher has gone', async () => {
  const run = await holdingRun()
  try {
    const frames: LiveFrame[] = []
    const [others] = await Promise.all([
      // Two watchers share one screencast.
      watchLive(run.id, [], 3),
      watchLive(run.id, frames, 5),
    ])
    expect(others.length).toBe(3)
    const frame = frames.at(-1)
    expect(frame).toMatchObject({ width: 1280, height: 800 })
    const pixels = await jpegRegion(decoderPage, Buffer.from(frame?.jpeg ?? '', 'base64'), pinInside)
    const grey = Array.from({ length: pinInside.width * pinInside.height }, () => [0x9a, 0xa0, 0xa6]).flat()
    expect(meanDifference(pixels, grey)).toBeLessThan(6)

    await until(async () => (await metric('sextant_live_viewers')) === 0, { what: 'both watchers to leave' })
    const made = await metric('sextant_live_frames_total')
    expect(made).toBeGreaterThanOrEqual(5)
    // The page keeps changing (a tick every 40 ms: some 25 frames a second while watched); nobody watches now.
    await sleep(1000)
    expect(await metric('sextant_live_frames_total')).toBe(made)
  } finally {
    await run.finish()
  }
}, 90_000)

test('the stream ends when the run lets its browser go; a finished run is not live (409)', async () => {
  const run = await holdingRun()
  const response = await fetch(`${harness.url}/v1/runs/${run.id}/live`, { headers: auth })
  expect(response.status).toBe(200)
  const ended = readSse(response)
  await run.finish()
  // Ends by itself (no stop condition): the run's browser was let go.
  await ended
  const after = await fetch(`${harness.url}/v1/runs/${run.id}/live`, { headers: auth })
  expect(after.status).toBe(409)
  expect(await after.json()).toMatchObject({ error: { code: 'not_live' } })
}, 90_000)

test('the live view needs the API token, and names unknown runs', async () => {
  const run = await holdingRun()
  try {
    expect((await fetch(`${harness.url}/v1/runs/${run.id}/live`)).status).toBe(401)
    const unknown = await fetch(`${harness.url}/v1/runs/no-such-run/live`, { headers: auth })
    expect(unknown.status).toBe(404)
  } finally {
    await run.finish()
  }
}, 90_000)
