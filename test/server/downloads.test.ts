import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, expect, test } from 'vitest'
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
import { type PageServer, serveFolder } from '../support/page-server.ts'
import { type Harness, json, postRun, readSse, runIdOf, startHarness } from './support.ts'

// A run's downloads through the API on an embedded store: real Chromium saves
// them into the run's folder, and GET …/downloads serves them from there.

let fake: FakeOpenAI
let harness: Harness
let site: PageServer

/**
 * Clicks the download link once, then stops once the download is reported: on a loaded machine the report
 * may come a step after the click, and a second click would be a second download.
 */
function downloadThenStop(request: FakeRequest): FakeTurn {
  const prompt = promptText(request)
  if (prompt.includes('Downloaded "report.csv"')) return doneTurn('Downloaded it.')
  if (prompt.includes("Clicked link 'Download report'")) return actionTurn('wait', { seconds: 1 })
  return actionTurn('click', { ref: refInView(request, 'link "Download report"') })
}

beforeAll(async () => {
  fake = await startFakeOpenAI({ fallback: downloadThenStop })
  site = await serveFolder(fileURLToPath(new URL('../fixtures/', import.meta.url)))
  harness = await startHarness({ fake, browser: 'chromium' })
})
afterAll(async () => {
  await harness?.close()
  await site?.close()
  fake?.close()
})

test('a run’s download is listed and served from its folder, as an attachment', async () => {
  const response = await postRun(harness.url, {
    task: 'Download the report.',
    startUrl: `${site.url}/effects/download.html`,
    maxTurns: 6,
  })
  const id = runIdOf(response)
  await readSse(response, () => false)

  const list = await fetch(`${harness.url}/v1/runs/${id}/downloads`)
  expect(list.status).toBe(200)
  const url = `/v1/runs/${id}/downloads/report.csv`
  expect(await json(list)).toEqual({ runId: id, downloads: [{ name: 'report.csv', bytes: 17, url }] })
  const file = await fetch(`${harness.url}${url}`)
  expect(file.status).toBe(200)
  expect(file.headers.get('content-disposition')).toBe(
    `attachment; filename="report.csv"; filename*=UTF-8''report.csv`,
  )
  expect(file.headers.get('x-content-type-options')).toBe('nosniff')
  expect(await file.text()).toBe('name,total\nada,3\n')

  for (const name of ['..%2F..%2Fsteps%2F1.jpg', '..', 'other.csv']) {
    const refused = await fetch(`${harness.url}/v1/runs/${id}/downloads/${name}`)
    expect(refused.status, name).toBe(404)
  }
  expect((await fetch(`${harness.url}/v1/runs/run_nope/downloads`)).status).toBe(404)
})
