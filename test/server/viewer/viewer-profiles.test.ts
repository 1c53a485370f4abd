import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, expect, test } from 'vitest'
import type { FakeOpenAI } from '../../support/models/fake-openai.ts'
import { type Harness, startHarness, startTestPage } from '../support.ts'
import { scriptedModel, startViewer, turn, type Viewer } from './support.ts'

// The viewer's side of profiles, driven as a person would: the list on the runs page, a profile given
// in the new-run form, and the profile a run used on its page; never a cookie's value anywhere.

const secretValue = `viewer-needle-${randomBytes(6).toString('hex')}`
let fake: FakeOpenAI
let harness: Harness
let viewer: Viewer
let site: Awaited<ReturnType<typeof startTestPage>>

beforeAll(async () => {
  site = await startTestPage()
  fake = await scriptedModel({ 'Use the profile': () => turn.done('Done with the profile.') })
  harness = await startHarness({
    fake,
    browser: 'chromium',
    config: { profileKey: randomBytes(32).toString('hex') },
  })
  viewer = await startViewer()
})
afterAll(async () => {
  await viewer?.close()
  await harness?.close()
  await fake?.close()
  await site?.close()
})

test('the runs page lists profiles; a run started with one (with instructions and a browser context) names them on its page; no value is shown', async () => {
  const state = {
    cookies: [{ name: 'session', value: secretValue, domain: '127.0.0.1', path: '/' }],
    origins: [],
  }
  const put = await fetch(`${harness.url}/v1/profiles/shop`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(state),
  })
  expect(put.status).toBe(200)

  const { page, problems } = await viewer.open()
  await page.goto(`${harness.url}/`)
  const row = page.locator('tr[data-profile="shop"]')
  await row.waitFor()
  expect(await row.textContent()).toContain('imported')

  await page.getByLabel('Task').fill('Use the profile')
  await page.getByLabel('Start URL').fill(site.url)
  await page.getByLabel('Profile', { exact: true }).fill('shop')
  await page.getByLabel('Instructions').fill('Keep the cart as it is.')
  await page.getByLabel('Device').fill('iPhone 15')
  await page.getByLabel('Time zone').fill('Europe/Berlin')
  await page.getByRole('button', { name: 'Start run' }).click()
  await page.waitForURL(/\/runs\/run_/)
  const id = decodeURIComponent(new URL(page.url()).pathname.split('/').at(-1) ?? '')
  await page.locator('#run-profile', { hasText: 'Profile shop' }).waitFor()
  await page
    .locator('#run-browser', { hasText: 'Browser: device iPhone 15 · timezoneId Europe/Berlin' })
    .waitFor()
  await page.locator('#run-instructions summary').click()
  await page.locator('#run-instructions pre', { hasText: 'Keep the cart as it is.' }).waitFor()
  await page.locator('#run-status', { hasText: 'completed' }).waitFor()
  expect(JSON.stringify(fake.requests.at(-1)?.body)).toContain('Keep the cart as it is.')
  expect(await page.content()).not.toContain(secretValue)

  await page.getByRole('link', { name: '← All runs' }).click()
  await row.locator('a', { hasText: id }).waitFor()
  expect(await page.content()).not.toContain(secretValue)
  expect(problems).toEqual([])
})
