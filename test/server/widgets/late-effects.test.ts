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

// What an action sets off late, end to end: the real server, real Chromium, and a model that acts only on what
// the page view shows (it picks refs from the view's text, as a model reads it).

let fake: FakeOpenAI
let harness: Harness
let site: PageServer

/** The latest page view the model was sent. */
function lastView(request: FakeRequest): string {
  const text = promptText(request)
  return text.slice(text.lastIndexOf('URL:'))
}

/** The ref of the view's line holding `text`, if the view offers one; `fresh`: only a line marked new (`*`). */
function refFor(view: string, text: string, fresh = false): string | undefined {
  for (const line of view.split('\n')) {
    if (!line.includes(text) || (fresh && !/^ *\* /.test(line))) continue
    const ref = /\[ref=([^\]]+)\]/.exec(line)?.[1]
    if (ref) return ref
  }
  return undefined
}

/** How many times the model was asked about the task, this request included (the fake records it first). */
function turnOf(task: string): number {
  return fake.requests.filter((each) => promptText(each).includes(task)).length
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
    const pdf = refFor(view, 'As PDF', true)
    if (pdf) return actionTurn('click', { ref: pdf })
    if (turnOf(menuTask) > 1) return doneTurn('The submenu is not in the view.', false)
    return actionTurn('hover', { ref: refFor(view, 'Export') })
  }
  if (text.includes(suggestTask)) {
    if (view.includes('Chose Parma')) return doneTurn('Picked.')
    const parma = refFor(view, 'Parma', true)
    if (parma) return actionTurn('click', { ref: parma })
    if (turnOf(suggestTask) > 1) return doneTurn('No suggestions in the view.', false)
    return actionTurn('type', { ref: refFor(view, 'City'), text: 'Pa' })
  }
  if (text.includes(monthTask)) {
    if (view.includes('Picked Apr 30')) return doneTurn('Picked.')
    if (refFor(view, 'Apr 30')) {
      // Mid-slide, the outgoing month is listed beside the incoming one: the model cannot tell which to trust.
      if (refFor(view, 'Mar 1')) return doneTurn('Two months are listed at once.', false)
      return actionTurn('click', { ref: refFor(view, 'Apr 30') })
    }
    if (turnOf(monthTask) > 1) return doneTurn('The next month is not in the view.', false)
    return actionTurn('click', { ref: refFor(view, 'Next month') })
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
