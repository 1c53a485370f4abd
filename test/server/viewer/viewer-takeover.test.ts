import { afterAll, beforeAll, expect, test } from 'vitest'
import type { FakeOpenAI } from '../../support/models/fake-openai.ts'
import { type PageServer, startPageServer } from '../../support/page-server.ts'
import { type Harness, startHarness } from '../support.ts'
import {
  captchaModel,
  captchaPage,
  captchaTask,
  checkboxCentre,
  clickOnLiveFrame,
  handOverReason,
  liveFrameShown,
} from './captcha.ts'
import { scriptedModel, startViewer, turn, type Viewer } from './support.ts'

// A person uses a run's browser from the viewer: the live frame shows the run's page, a click on it
// reaches that page, Hand back resumes the run. Real Chromium on the viewer and for the run, the
// real server on an ephemeral port; only the model is scripted (through the fake endpoint).

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
    pages: {
      '/': buttonPage,
      '/clicked': '<!doctype html><title>Clicked</title><p>A person clicked.</p>',
      '/check': captchaPage,
    },
  })
  fake = await scriptedModel({
    [captchaTask]: captchaModel,
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

async function startRun(task: string, startUrl: string): Promise<string> {
  const response = await fetch(`${harness.url}/v1/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ task, startUrl, maxTurns: 20 }),
  })
  await response.body?.cancel()
  return response.headers.get('x-run-id') ?? ''
}

test('the model hands over at a human check: the person ticks it on the live frame, hands back, and the model finishes', async () => {
  const id = await startRun(captchaTask, `${site.url}/check`)
  const { page, problems } = await viewer.open()
  await page.goto(`${harness.url}/runs/${id}`)
  const banner = page.getByRole('region', { name: 'Takeover' })
  await banner.getByText(handOverReason).waitFor()
  expect(await banner.getByRole('heading').textContent()).toBe('The model asks for a person')
  await liveFrameShown(page)
  expect(await page.locator('#live').getAttribute('class')).toContain('taken-over')

  await clickOnLiveFrame(page, checkboxCentre)
  // The live frame has the focus, so keys typed now would go to the run's page too.
  expect(await page.evaluate(() => document.activeElement?.id)).toBe('live-frame')
  await banner.getByRole('button', { name: 'Hand back' }).click()
  await page.locator('#run-status', { hasText: 'completed' }).waitFor()
  expect(await page.locator('#outcome').textContent()).toContain('The page says I am verified.')
  expect(await banner.isHidden()).toBe(true)
  expect(await page.locator('#live').isHidden()).toBe(true)
  // Handed back: the frame no longer takes the focus, nor says it takes input.
  expect(await page.locator('#live-frame').getAttribute('tabindex')).toBeNull()
  expect(await page.locator('#live').getAttribute('class')).not.toContain('taken-over')

  const events = await harness.store.events(id)
  expect(events.find((event) => event.type === 'takeover_started')).toMatchObject({
    by: 'model',
    reason: handOverReason,
  })
  expect(events.some((event) => event.type === 'takeover_ended')).toBe(true)
  expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'model_stop', result: { success: true } })
  expect(problems).toEqual([])
}, 90_000)

test('Take over mid-run shows the banner; a click on the live frame reaches the page, and Hand back resumes the run', async () => {
  const id = await startRun('Wait for a person', `${site.url}/`)
  const { page, problems } = await viewer.open()
  await page.goto(`${harness.url}/runs/${id}`)
  await liveFrameShown(page)
  const takeOver = page.getByRole('button', { name: 'Take over' })
  await page.waitForFunction(() => !(document.getElementById('take-over') as HTMLButtonElement).disabled)
  await takeOver.click()
  const banner = page.getByRole('region', { name: 'Takeover' })
  await banner.getByText('A person has the browser').waitFor()

  // The centre of the button, wherever the viewer's layout puts the frame and whatever its scale.
  await clickOnLiveFrame(page, { x: 300, y: 170 })
  await banner.getByRole('button', { name: 'Hand back' }).click()
  await page.locator('#run-status', { hasText: 'completed' }).waitFor()
  expect(await page.locator('#outcome').textContent()).toContain('The person opened /clicked.')
  expect(await banner.isHidden()).toBe(true)
  expect(await takeOver.isDisabled()).toBe(true)
  expect(problems).toEqual([])
}, 90_000)
