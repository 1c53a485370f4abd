import { afterAll, beforeAll, expect, test } from 'vitest'
import { libraryPage } from '../../support/bundle.ts'
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
import { events, type Harness, postRun, readSse, startHarness } from '../support.ts'

// flatpickr's own calendar (the dev dependency, bundled at test time), through the HTTP API: a scripted
// model that reads refs off the latest view switches to the next month by its icon-only arrow and picks a
// day; the page's read-back of the picked date ends the task.

let fake: FakeOpenAI
let harness: Harness
let site: PageServer

function model(request: FakeRequest): FakeTurn {
  const prompt = promptText(request)
  const view = prompt.slice(prompt.lastIndexOf('URL: http'))
  const lines = view.split('\n')
  const refOn = (test: (line: string) => boolean) =>
    /\[ref=(\w+)\]/.exec(lines.find((line) => test(line) && line.includes('[ref=')) ?? '')?.[1]
  if (view.includes('Picked 2026-04-20')) return doneTurn('April 20 is picked.')
  const day = refOn((line) => line.includes('"April 20, 2026"'))
  if (day) return actionTurn('click', { ref: day })
  // The arrow is an SVG in a span: the view names it by its class.
  const next = refOn((line) => /icon=[^\]]*next-month/.test(line))
  return next ? actionTurn('click', { ref: next }) : doneTurn('No way to the next month in the view.', false)
}

beforeAll(async () => {
  const page = await libraryPage({
    entry: 'flatpickr-month.js',
    title: 'Booking',
    css: ['flatpickr/dist/flatpickr.css'],
    body: '<input id="when" aria-label="When"><p id="said"></p>',
  })
  site = await startPageServer({ pages: { '/': page } })
  fake = await startFakeOpenAI({ fallback: model })
  harness = await startHarness({ fake, browser: 'chromium' })
}, 60_000)
afterAll(async () => {
  await harness?.close()
  await site?.close()
  await fake?.close()
})

test('flatpickr: the next month by its icon-only arrow, then a day picked by its ref', async () => {
  const response = await postRun(harness.url, {
    task: 'Pick the 20th of next month in the calendar.',
    startUrl: `${site.url}/`,
    maxTurns: 5,
  })
  const list = events(await readSse(response))
  const failures = list.flatMap((event) =>
    event.type === 'tool_call_result' && !event.ok ? [event.result ?? ''] : [],
  )
  expect(failures).toEqual([])
  expect(list.at(-1)).toMatchObject({ type: 'done', reason: 'model_stop', result: { success: true } })
})
