import { afterAll, beforeAll, expect, test } from 'vitest'
import { type Harness, startHarness } from '../http/support.ts'
import type { FakeOpenAI } from '../support/fake-openai.ts'
import { type PageServer, startPageServer } from '../support/page-server.ts'
import { scriptedModel, startViewer, turn, type Viewer } from './support.ts'

// A person takes a run's browser from the viewer, clicks the page through the live frame, and hands
// it back: real Chromium on the viewer and for the run, the model scripted through the fake endpoint.

/** A button at 200–400 × 120–220 CSS pixels: clicking it opens /clicked. */
const buttonPage =
  '<!doctype html><title>Takeover</title><style>body{margin:0}button{position:absolute;left:200px;top:120px;width:200px;height:100px}</style>' +
  '<button onclick="location.href=\'/clicked\'">Continue</button>'

let fake: FakeOpenAI
let harness: Harness
let viewer: Viewer
let site: PageServer

beforeAll(async () => {
  site = await startPageServer({
    pages: { '/': buttonPage, '/clicked': '<!doctype html><title>Clicked</title><p>A person clicked.</p>' },
  })
  fake = await scriptedModel({
    // Waits until a person has had the browser, then says where the page is.
    'Wait for a person': (_step, view) =>
      view.includes('A person took over')
        ? turn.done(view.includes('/clicked') ? 'The person opened /clicked.' : 'The page did not change.')
        : turn.action({ wait: { seconds: 1 } }),
  })
  harness = await startHarness({ fake, browser: 'chromium' })
  viewer = await startViewer()
})
afterAll(async () => {
  await viewer?.close()
  await harness?.close()
  await fake?.close()
  await site?.close()
})

test('Take over shows the banner, a click on the live frame reaches the page, and Hand back resumes the run', async () => {
  const response = await fetch(`${harness.url}/v1/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ task: 'Wait for a person', startUrl: `${site.url}/`, maxTurns: 20 }),
  })
  const id = response.headers.get('x-run-id') ?? ''
  await response.body?.cancel()
  const { page, problems } = await viewer.open()
  await page.goto(`${harness.url}/runs/${id}`)
  const takeOver = page.getByRole('button', { name: 'Take over' })
  await page.waitForFunction(() => !(document.getElementById('take-over') as HTMLButtonElement).disabled)
  await takeOver.click()
  const banner = page.getByRole('region', { name: 'Takeover' })
  await banner.getByText('A person has the browser').waitFor()

  // The live view's frame (its own module fills it): shown at half size, it stands for a 1280×800 viewport.
  await page.evaluate(() => {
    const frame = document.createElement('img')
    frame.id = 'live-frame'
    frame.alt = 'Live view'
    frame.dataset.viewportWidth = '1280'
    frame.dataset.viewportHeight = '800'
    frame.style.cssText = 'display:block;width:640px;height:400px;background:#ccc'
    document.getElementById('takeover')?.after(frame)
  })
  // (150, 85) on the half-size frame is (300, 170) on the page: inside the button (unscaled, it would miss).
  await page.getByRole('img', { name: 'Live view' }).click({ position: { x: 150, y: 85 } })
  await page.getByRole('button', { name: 'Hand back' }).click()
  await page.locator('#run-status', { hasText: 'completed' }).waitFor()
  expect(await page.locator('#outcome').textContent()).toContain('The person opened /clicked.')
  expect(await banner.isHidden()).toBe(true)
  expect(await takeOver.isDisabled()).toBe(true)
  expect(problems).toEqual([])
})
