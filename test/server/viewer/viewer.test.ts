import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, expect, test } from 'vitest'
import type { FakeOpenAI } from '../../support/models/fake-openai.ts'
import { until } from '../../support/until.ts'
import { type Harness, json, postRun, readSse, runIdOf, startHarness, startTestPage } from '../support.ts'
import { refIn, scriptedModel, startViewer, turn, type Viewer } from './support.ts'

// The run viewer, driven as a person would: real Chromium on the viewer, real server, real Chromium for
// the runs, the model scripted per task through the fake OpenAI endpoint.

let fake: FakeOpenAI
let harness: Harness
let viewer: Viewer
let site: Awaited<ReturnType<typeof startTestPage>>
let pricesDir: string

beforeAll(async () => {
  // The fake model gets a price, so the runs have a cost to show.
  pricesDir = mkdtempSync(join(tmpdir(), 'sextant-prices-'))
  const prices = join(pricesDir, 'prices.json')
  writeFileSync(prices, JSON.stringify({ models: { 'fake/agent-model': { input: 1000, output: 1000 } } }))
  site = await startTestPage()
  fake = await scriptedModel({
    'Confirm and finish': (step, view) => {
      if (step === 1) return turn.action({ navigate: { url: site.url } })
      if (step === 2) return turn.action({ click: { ref: refIn(view, 'link', 'Next') } })
      if (step === 3) return turn.action({ execute_javascript: { script: 'return document.title' } })
      return turn.done('The second page is titled Second Page.')
    },
    'Wait to be aborted': (step) =>
      step === 1 ? turn.action({ navigate: { url: site.url } }) : turn.action({ wait: { seconds: 10 } }),
    'Ask, then finish': (step, view) =>
      step === 1
        ? turn.action({ ask_user: { question: 'Which colour should the button be?' } })
        : turn.done(view.includes('Teal, please.') ? 'The user chose teal.' : 'No answer came.'),
    'Give typed data': () =>
      turn.action({ done: { text: 'Two items.', success: true, data: { items: ['tea', '<b>cake</b>'] } } }),
    'Reload while it runs': (step) =>
      step <= 4 ? turn.action({ wait: { seconds: 1 } }, { delayMs: 150 }) : turn.done('Waited four times.'),
  })
  harness = await startHarness({ fake, browser: 'chromium', config: { prices } })
  viewer = await startViewer()
})
afterAll(async () => {
  await viewer?.close()
  await harness?.close()
  await fake?.close()
  await site?.close()
  if (pricesDir) rmSync(pricesDir, { recursive: true, force: true })
})

async function startFromForm(page: Page, task: string): Promise<string> {
  await page.goto(`${harness.url}/`)
  await page.getByLabel('Task').fill(task)
  await page.getByLabel('Start URL').fill(site.url)
  await page.getByLabel('Max turns').fill('8')
  await page.getByLabel('Allowed domains').fill('127.0.0.1')
  await page.getByRole('button', { name: 'Start run' }).click()
  await page.waitForURL(/\/runs\/run_/)
  return decodeURIComponent(new URL(page.url()).pathname.split('/').at(-1)!)
}

function stepHeadings(page: Page): Promise<string[]> {
  return page.locator('#steps > li > h2').allTextContents()
}

test('a run started from the form shows its steps live with screenshots, takes an approval from the page and completes', async () => {
  const { page, problems } = await viewer.open()
  const id = await startFromForm(page, 'Confirm and finish')

  // The run waits for the confirmation: the steps so far are on the page while it is still running.
  const approve = page.getByRole('button', { name: 'Approve' })
  await approve.waitFor()
  expect(await page.locator('#run-status').textContent()).toBe('running')
  expect(await stepHeadings(page)).toEqual(['Step 1', 'Step 2', 'Step 3'])
  const shot = page.getByRole('img', { name: 'Step 2 screenshot' })
  await until(() => shot.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth === 1280), {
    what: 'the step 2 screenshot to load',
  })
  // Step 2 clicked the link: it is outlined on that step's screenshot.
  expect(await page.locator('li[data-step="2"] .target').count()).toBe(1)
  expect(await page.locator('li[data-step="2"] .action').textContent()).toContain('click')

  await approve.click()
  await page.locator('#run-status', { hasText: 'completed' }).waitFor()
  expect(await page.locator('#outcome').textContent()).toContain('The second page is titled Second Page.')
  expect(await page.locator('li[data-step="3"]').textContent()).toContain('Approved (by user)')
  expect(await page.getByRole('button', { name: 'Abort' }).isDisabled()).toBe(true)
  expect(await json(await fetch(`${harness.url}/v1/runs/${id}`))).toMatchObject({ status: 'completed' })
  // The header reads the run again once it is done: its cost is known then.
  await page.locator('#run-meta', { hasText: /Cost \$\d/ }).waitFor()

  // The page view of a step, on demand.
  await page.locator('li[data-step="2"] summary', { hasText: 'Page view' }).click()
  await page.locator('li[data-step="2"] .page-view pre', { hasText: 'link "Next"' }).waitFor()

  // The runs list shows the run, and the status filter narrows it.
  await page.getByRole('link', { name: '← All runs' }).click()
  const row = page.locator(`tr[data-run-id="${id}"]`)
  await row.waitFor()
  expect(await row.textContent()).toContain('completed')
  expect(await row.locator('td').nth(4).textContent()).toMatch(/^\$\d/)
  await page.getByLabel('Status').selectOption('failed')
  await row.waitFor({ state: 'detached' })
  expect(problems).toEqual([])
})

test('Abort on the page stops a second run with user_abort', async () => {
  const { page, problems } = await viewer.open()
  const id = await startFromForm(page, 'Wait to be aborted')
  await page.locator('li[data-step="2"] .action', { hasText: 'wait' }).waitFor()
  await page.getByRole('button', { name: 'Abort' }).click()
  await page.locator('#run-status', { hasText: 'stopped' }).waitFor()
  expect(await page.locator('#outcome').textContent()).toContain('user_abort')
  expect(await json(await fetch(`${harness.url}/v1/runs/${id}`))).toMatchObject({
    status: 'stopped',
    reason: 'user_abort',
  })
  expect(problems).toEqual([])
})

test('a question is answered from the page', async () => {
  const { page, problems } = await viewer.open()
  await startFromForm(page, 'Ask, then finish')
  await page.getByText('Which colour should the button be?').first().waitFor()
  // While the run waits, its browser is shown live, with the viewport's CSS size for mapping points.
  const frame = page.locator('#live #live-frame')
  await frame.and(page.locator('[src^="blob:"]')).waitFor()
  expect(await frame.getAttribute('data-viewport-width')).toBe('1280')
  expect(await frame.getAttribute('data-viewport-height')).toBe('800')
  await page.getByLabel('Answer').fill('Teal, please.')
  await page.getByRole('button', { name: 'Send answer' }).click()
  await page.locator('#run-status', { hasText: 'completed' }).waitFor()
  await page.locator('#live').waitFor({ state: 'hidden' })
  expect(await page.locator('#outcome').textContent()).toContain('The user chose teal.')
  expect(await page.getByRole('button', { name: 'Send answer' }).count()).toBe(0)
  expect(problems).toEqual([])
})

test('a run with an output schema shows its data in the outcome, as text', async () => {
  const output = { type: 'object', properties: { items: { type: 'array', items: { type: 'string' } } } }
  const response = await postRun(harness.url, { task: 'Give typed data', output })
  await readSse(response)
  const { page, problems } = await viewer.open()
  await page.goto(`${harness.url}/runs/${runIdOf(response)}`)
  const data = page.locator('#outcome pre.data')
  await data.waitFor()
  expect(JSON.parse((await data.textContent()) ?? '')).toEqual({ items: ['tea', '<b>cake</b>'] })
  expect(await page.locator('#outcome b').count()).toBe(0)
  expect(problems).toEqual([])
})

test('a reload in the middle of a run misses no step and doubles none', async () => {
  const { page, problems } = await viewer.open()
  const id = await startFromForm(page, 'Reload while it runs')
  await page.locator('li[data-step="2"]').waitFor()
  await page.reload()
  await page.locator('#run-status', { hasText: 'completed' }).waitFor()
  const run = await json<{ steps: number }>(await fetch(`${harness.url}/v1/runs/${id}`))
  expect(run.steps).toBe(5)
  expect(await stepHeadings(page)).toEqual(['Step 1', 'Step 2', 'Step 3', 'Step 4', 'Step 5'])
  // One action and one result per step: no event was shown twice.
  expect(await page.locator('.action').count()).toBe(5)
  expect(await page.locator('.result').count()).toBe(5)
  // Notes too: the warning that few steps remain (8 turns, 5 steps) is shown once, in its step.
  expect(await page.locator('.step .note.warning', { hasText: 'steps_remaining' }).count()).toBe(1)
  expect(problems).toEqual([])
})

test('every page and asset comes from the server itself, under a strict Content-Security-Policy', async () => {
  const { page, problems } = await viewer.open()
  const requests: string[] = []
  page.on('request', (request) => requests.push(request.url()))
  const response = await page.goto(`${harness.url}/`)
  const csp = response?.headers()['content-security-policy'] ?? ''
  expect(csp).toContain("default-src 'none'")
  expect(csp).toContain("script-src 'self'")
  expect(csp).not.toContain('unsafe-inline')
  await page.locator('#runs tr').first().waitFor()
  expect(requests.every((url) => url.startsWith(harness.url))).toBe(true)
  expect(problems).toEqual([])
})
