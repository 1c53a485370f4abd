import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { checkClickable, checkFailure } from '../../../src/browser/actions/click-check.ts'
import { launchBrowser } from '../../../src/browser/launch/launcher.ts'
import { firstElement } from '../../../src/browser/view/first-element.ts'

// A click's check reads the element its lookup found (a handle), not whatever a locator finds later:
// an element the page took out in between is said to be gone, not hidden. Real Chromium.

let browser: Browser
let page: Page
const signal = new AbortController().signal

beforeAll(async () => {
  browser = await launchBrowser({})
  page = await browser.newPage()
})
afterAll(async () => {
  await browser?.close()
})

describe('the click check', () => {
  test('an element the page removed after its lookup is gone, and the check says so', async () => {
    await page.setContent('<button id="save">Save</button><button id="hidden" hidden>Hidden</button>')
    const save = await firstElement(page.locator('#save'), signal)
    if (!save) throw new Error('the button was not found')
    expect(await checkClickable(save, signal)).toEqual({ state: 'ok' })
    // A framework re-renders the button: the same markup, another element.
    await page.evaluate(() => {
      const old = document.getElementById('save')
      old?.replaceWith(old.cloneNode(true))
    })
    const check = await checkClickable(save, signal)
    expect(check).toEqual({ state: 'gone' })
    expect(checkFailure(check)).toBe('the page removed it since the page view; read the new view')

    const hidden = await firstElement(page.locator('#hidden'), signal)
    if (!hidden) throw new Error('the hidden button was not found')
    expect(await checkClickable(hidden, signal)).toEqual({ state: 'hidden' })
  })

  test('a lookup that finds nothing gives no element', async () => {
    await page.setContent('<p>Nothing to click</p>')
    expect(await firstElement(page.locator('button'), signal)).toBeUndefined()
  })
})
