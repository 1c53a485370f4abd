import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, expect, test } from 'vitest'
import type { FakeOpenAI } from '../../support/models/fake-openai.ts'
import { type PageServer, serveFolder } from '../../support/page-server.ts'
import { until } from '../../support/until.ts'
import { type Harness, postRun, readSse, runIdOf, startHarness, startTestPage } from '../support.ts'
import { refIn, scriptedModel, startViewer, turn, type Viewer } from './support.ts'

// The viewer on a server with SEXTANT_API_TOKEN: it asks for the token, refuses to show anything
// without it, and keeps it out of URLs and cookies.

const token = 'viewer-test-token-0123456789'
let fake: FakeOpenAI
let harness: Harness
let viewer: Viewer
let site: Awaited<ReturnType<typeof startTestPage>>
let fixtures: PageServer

beforeAll(async () => {
  site = await startTestPage()
  fixtures = await serveFolder(fileURLToPath(new URL('../../fixtures/', import.meta.url)))
  fake = await scriptedModel({
    'Look with a token': (step) =>
      step === 1 ? turn.action({ navigate: { url: site.url } }) : turn.done('Seen with a token.'),
    'Download with a token': (step, view) =>
      step === 1
        ? turn.action({ click: { ref: refIn(view, 'link', 'Download report') } })
        : turn.done('Downloaded.'),
  })
  harness = await startHarness({ fake, browser: 'chromium', config: { apiToken: token } })
  viewer = await startViewer()
})
afterAll(async () => {
  await viewer?.close()
  await harness?.close()
  await fake?.close()
  await site?.close()
  await fixtures?.close()
})

test('the viewer asks for the token, refuses a wrong one, and works once the right one is entered', async () => {
  const { page } = await viewer.open()
  await page.goto(`${harness.url}/`)
  // Without the token: the token form, and neither the runs nor the form to start one.
  await page.getByLabel('API token', { exact: true }).waitFor()
  expect(await page.locator('#content').isHidden()).toBe(true)
  expect((await fetch(`${harness.url}/v1/runs`)).status).toBe(401)

  await page.getByLabel('API token', { exact: true }).fill('not-the-token-at-all')
  await page.getByRole('button', { name: 'Use token' }).click()
  await page.locator('#token-error', { hasText: 'That token was refused' }).waitFor()
  expect(await page.locator('#content').isHidden()).toBe(true)

  await page.getByLabel('API token', { exact: true }).fill(token)
  await page.getByRole('button', { name: 'Use token' }).click()
  await page.getByLabel('Task').fill('Look with a token')
  await page.getByRole('button', { name: 'Start run' }).click()
  await page.waitForURL(/\/runs\/run_/)
  await page.locator('#run-status', { hasText: 'completed' }).waitFor()
  const shot = page.getByRole('img', { name: 'Step 2 screenshot' })
  await until(() => shot.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0), {
    what: 'the screenshot to load with the bearer header',
  })
  expect(await shot.getAttribute('src')).toMatch(/^blob:/)

  // The token is in no URL the page asked for and in no cookie.
  expect(page.url()).not.toContain(token)
  expect(await page.context().cookies()).toEqual([])
  expect(await page.evaluate(() => sessionStorage.getItem('sextant.apiToken'))).toBe(token)
})

test('a page opened without the token shows no run data', async () => {
  const { page } = await viewer.open()
  const answers: number[] = []
  page.on('response', (response) => {
    if (new URL(response.url()).pathname.startsWith('/v1/')) answers.push(response.status())
  })
  await page.goto(`${harness.url}/`)
  await page.getByLabel('API token', { exact: true }).waitFor()
  expect(await page.locator('#runs tr').count()).toBe(0)
  // It asked nothing of the API before it had a token.
  expect(answers).toEqual([])
})

test("a finished run's page saves its recording and what its browser downloaded, with the token", async () => {
  const response = await postRun(
    harness.url,
    { task: 'Download with a token', startUrl: `${fixtures.url}/effects/download.html`, maxTurns: 4 },
    { authorization: `Bearer ${token}` },
  )
  const id = runIdOf(response)
  await readSse(response, () => false)

  const { page, problems } = await viewer.open()
  await page.goto(`${harness.url}/runs/${id}#token=${token}`)
  // The files are fetched with the bearer token (a plain link would be refused) and saved from memory.
  const report = page.getByRole('button', { name: 'report.csv (17 B)' })
  const [file] = await Promise.all([page.waitForEvent('download'), report.click()])
  expect(file.suggestedFilename()).toBe('report.csv')
  expect(readFileSync(await file.path(), 'utf8')).toBe('name,total\nada,3\n')

  const [saved] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Recording' }).click(),
  ])
  expect(saved.suggestedFilename()).toBe(`${id}.recording.json`)
  const recording = JSON.parse(readFileSync(await saved.path(), 'utf8')) as {
    task: string
    steps: { tool: string }[]
  }
  expect(recording.task).toBe('Download with a token')
  expect(recording.steps.map((step) => step.tool)).toContain('click')
  expect(problems).toEqual([])
})
