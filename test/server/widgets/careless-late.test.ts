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

// The late effects of late-effects.test.ts on pages written as careless sites are: no role, no pointer
// cursor, no onclick property; only listeners added by script. A scripted model acts only on refs it
// reads off the latest page view; it acts once to set the effect off and needs it in the very next view.

let fake: FakeOpenAI
let harness: Harness
let site: PageServer

function lastView(request: FakeRequest): string {
  return latestView(promptText(request))
}

const menuTask = 'Export the document as PDF from the menu.'
const suggestTask = 'Pick Parma from the city suggestions.'

function model(request: FakeRequest): FakeTurn {
  const text = promptText(request)
  const view = lastView(request)
  if (text.includes(menuTask)) {
    if (view.includes('Exported PDF')) return doneTurn('Exported.')
    const pdf = refOn(view, 'As PDF', true)
    if (pdf) return actionTurn('click', { ref: pdf })
    if (timesAsked(fake, menuTask) > 1) return doneTurn('The submenu is not in the view.', false)
    // The entry only listens for the pointer entering: the view says so, and hover is how to reach it.
    const entry = view.split('\n').find((line) => line.includes('Export') && line.includes('[hover]'))
    const ref = entry ? /\[ref=([^\]]+)\]/.exec(entry)?.[1] : undefined
    return ref ? actionTurn('hover', { ref }) : doneTurn('No Export entry to hover in the view.', false)
  }
  if (text.includes(suggestTask)) {
    if (view.includes('Chose Parma')) return doneTurn('Picked.')
    const parma = refOn(view, 'Parma', true)
    if (parma) return actionTurn('click', { ref: parma })
    if (timesAsked(fake, suggestTask) > 1) return doneTurn('No suggestions with refs in the view.', false)
    const field = refOn(view, 'City')
    return field ? actionTurn('type', { ref: field, text: 'Pa' }) : doneTurn('No field.', false)
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
  const response = await postRun(harness.url, { task, startUrl: `${site.url}/late/${page}`, maxTurns: 4 })
  return events(await readSse(response)).at(-1)
}

test('a plain div that opens its submenu 300 ms after the pointer enters: hovered by its ref, the entry clicked', async () => {
  expect(await run(menuTask, 'careless-submenu.html')).toMatchObject({
    type: 'done',
    result: { success: true, text: 'Exported.' },
  })
})

test('a debounced list of plain divs with click listeners: typed into, a suggestion picked by its ref', async () => {
  expect(await run(suggestTask, 'careless-suggest.html')).toMatchObject({
    type: 'done',
    result: { success: true, text: 'Picked.' },
  })
})
