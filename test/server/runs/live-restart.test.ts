import { afterAll, beforeAll, expect, test } from 'vitest'
import { killChromiumChildren } from '../../support/kill-chromium.ts'
import {
  actionTurn,
  doneTurn,
  type FakeOpenAI,
  type FakeRequest,
  type FakeTurn,
  promptText,
  startFakeOpenAI,
} from '../../support/models/fake-openai.ts'
import { type PageServer, startPageServer } from '../../support/page-server.ts'
import { until } from '../../support/until.ts'
import { type Harness, postRun, readSse, runIdOf, startHarness } from '../support.ts'

// A live view outlives the run's browser: when Chromium is killed under a run and the run gets a fresh
// browser, the same GET /v1/runs/:id/live stream goes on with the new browser's frames.

let fake: FakeOpenAI
let harness: Harness
let site: PageServer

const animatedPage = `<!doctype html><meta charset="utf-8"><title>Live</title><body style="margin:0">
<div id="tick" style="font:20px monospace">0</div>
<script>let n = 0; setInterval(() => { document.getElementById('tick').textContent = String(++n) }, 40)</script>
</body>`

/** Asks twice (the run waits with its browser open each time), then finishes. */
function askTwice(request: FakeRequest): FakeTurn {
  const text = promptText(request)
  if (text.includes('SECOND-4242')) return doneTurn('Done.')
  if (text.includes('FIRST-4242')) return actionTurn('ask_user', { question: 'And now?' })
  return actionTurn('ask_user', { question: 'May I go on?' })
}

beforeAll(async () => {
  fake = await startFakeOpenAI({ fallback: askTwice })
  site = await startPageServer({ pages: { '/': animatedPage } })
  harness = await startHarness({ fake, browser: 'chromium' })
})
afterAll(async () => {
  await harness?.close()
  await site?.close()
  await fake?.close()
})

test('the live stream follows the run to its fresh browser when the first one dies', async () => {
  const response = await postRun(harness.url, { task: 'Watch the page.', startUrl: `${site.url}/` })
  const id = runIdOf(response)
  const questions: string[] = []
  const events = readSse(response, (message) => {
    if (message.data.type === 'question') questions.push(message.data.questionId)
    return message.data.type === 'done'
  })
  const answer = async (text: string) => {
    const reply = await fetch(`${harness.url}/v1/runs/${id}/answers/${questions.at(-1)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ answer: text }),
    })
    expect(reply.status).toBe(200)
  }
  await until(() => questions.length === 1, { what: 'the first question' })

  const live = await fetch(`${harness.url}/v1/runs/${id}/live`)
  expect(live.status).toBe(200)
  let frames = 0
  let framesAtKill: number | undefined
  const watched = readSse(live, () => {
    frames++
    // Stops once frames came after the kill (from the fresh browser: the first is dead).
    return framesAtKill !== undefined && frames > framesAtKill + 2
  })
  await until(() => frames > 0, { what: 'a frame of the first browser' })
  const first = harness.server.manager.get(id)?.browser
  framesAtKill = frames
  expect(killChromiumChildren()).not.toEqual([])
  // The next step finds the browser dead and gives the run a fresh one.
  await answer('FIRST-4242')
  await until(() => questions.length === 2, { what: 'the second question' })
  expect(harness.server.manager.get(id)?.browser).not.toBe(first)
  await watched
  expect(frames).toBeGreaterThan(framesAtKill + 2)
  await answer('SECOND-4242')
  const list = (await events).map((message) => message.data)
  expect(list.some((event) => event.type === 'warning' && event.code === 'browser_restarted')).toBe(true)
  expect(list.at(-1)).toMatchObject({ type: 'done', reason: 'model_stop' })
}, 90_000)
