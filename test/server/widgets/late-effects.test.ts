import { afterAll, beforeAll, expect, test } from 'vitest'
import { fixturesDir } from '../../browser/helpers/harness.ts'
import {
  actionTurn,
  doneTurn,
  type FakeOpenAI,
  type FakeRequest,
  type FakeTurn,
  promptText,
  startFakeOpenAI,
} from '../../support/models/fake-openai.ts'
import { type PageServer, serveFolder } from '../../support/page-server.ts'
import { events, type Harness, postRun, readSse, startHarness } from '../support.ts'
import { latestView, refOn, timesAsked } from './view-reading.ts'

// What an action sets off late, end to end: the real server, real Chromium, and a model that acts only on what
// the page view shows (it picks refs from the view's text, as a model reads it).

let fake: FakeOpenAI
let harness: Harness
let site: PageServer

function lastView(request: FakeRequest): string {
  return latestView(promptText(request))
}

const menuTask = 'Export the document as PDF from the menu.'
const suggestTask = 'Pick Parma from the city suggestions.'
const monthTask = 'Show the next month and pick its 30th.'

/** A model that sees only the view: it acts once to set the effect off, then needs it in the very next view. */
function model(request: FakeRequest): FakeTurn {
  const text = promptText(request)
  const view = lastView(request)
  if (text.includes(menuTask)) {
    if (view.includes('Exported PDF')) return doneTurn('Exported.')
    const pdf = refOn(view, 'As PDF', true)
    if (pdf) return actionTurn('click', { ref: pdf })
    if (timesAsked(fake, menuTask) > 1) return doneTurn('The submenu is not in the view.', false)
    return actionTurn('hover', { ref: refOn(view, 'Export') })
  }
  if (text.includes(suggestTask)) {
    if (view.includes('Chose Parma')) return doneTurn('Picked.')
    const parma = refOn(view, 'Parma', true)
    if (parma) return actionTurn('click', { ref: parma })
    if (timesAsked(fake, suggestTask) > 1) return doneTurn('No suggestions in the view.', false)
    return actionTurn('type', { ref: refOn(view, 'City'), text: 'Pa' })
  }
  if (text.includes(monthTask)) {
    if (view.includes('Picked Apr 30')) return doneTurn('Picked.')
    if (refOn(view, 'Apr 30')) {
      // Mid-slide, the outgoing month is listed beside the incoming one: the model cannot tell which to trust.
      if (refOn(view, 'Mar 1')) return doneTurn('Two months are listed at once.', false)
      return actionTurn('click', { ref: refOn(view, 'Apr 30') })
    }
    if (timesAsked(fake, monthTask) > 1) return doneTurn('The next month is not in the view.', false)
    return actionTurn('click', { ref: refOn(view, 'Next month') })
  }
  return doneTurn('Nothing to do.', false)
}

beforeAll(async () => {
  fake = await startFakeOpenAI({ fallback: model })
  site = await serveFolder(fixturesDir)
  harness = await startHarness({ fake, browser: 'chromium' })
})

afterAll(async () => {
  await harness?.close()
  await site?.close()
  await fake?.close()
})

async function run(task: string, page: string) {
  const response = await postRun(harness.url, { task, startUrl: `${site.url}/late/${page}` })
  return events(await readSse(response)).at(-1)
}

test('a submenu that opens 300 ms after the hover is in the next view: the model clicks its entry', async () => {
  expect(await run(menuTask, 'submenu.html')).toMatchObject({
    type: 'done',
    result: { success: true, text: 'Exported.' },
  })
})

test('a suggestion list debounced by 350 ms is in the view after the typing: the model picks from it', async () => {
  expect(await run(suggestTask, 'suggest.html')).toMatchObject({
    type: 'done',
    result: { success: true, text: 'Picked.' },
  })
})

test("a month switch's slide is waited for: the view lists only the new month, and its day is picked", async () => {
  expect(await run(monthTask, 'month-switch.html')).toMatchObject({
    type: 'done',
    result: { success: true, text: 'Picked.' },
  })
})
