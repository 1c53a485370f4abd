import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { checkClickable } from '../../../src/browser/actions/click-check.ts'
import { firstElement } from '../../../src/browser/view/first-element.ts'
import { borrowBrowser } from '../../support/suite/shared-browser.ts'
import { Driver, servedFixtures } from '../helpers/harness.ts'

// The click check clips an element only by the ancestors the browser clips it by: those on its chain of
// containing blocks. A fixed panel escapes the scrolling editor it sits in; a positioned menu escapes the
// overflow-hidden card between it and its positioned ancestor; a box is still clipped by the containing
// block it really has (a transformed scroller holds its fixed children). Real Chromium.

const fixtures = servedFixtures()
let browser: Browser
let page: Page
const signal = new AbortController().signal

beforeAll(async () => {
  browser = await borrowBrowser()
  page = await browser.newPage()
}, 60_000)
afterAll(async () => {
  await browser?.close()
})

async function stateOf(selector: string): Promise<string> {
  const found = await firstElement(page.locator(selector), signal)
  if (!found) throw new Error(`${selector} was not found`)
  return (await checkClickable(found, signal)).state
}

/** Whether the browser's own hit test at the element's middle lands on it: what decides the truth here. */
async function hitAtMiddle(selector: string): Promise<boolean> {
  return page.evaluate((selector) => {
    const element = document.querySelector(selector)
    const box = element?.getBoundingClientRect()
    if (!element || !box) return false
    const hit = document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2)
    return hit !== null && element.contains(hit)
  }, selector)
}

describe('clipping follows the containing block', () => {
  test("Gutenberg's pre-publish panel: the fixed panel's Publish button, above the scrolling editor body, is clicked", async () => {
    const driver = await Driver.open(fixtures.pool, { startUrl: `${fixtures.url}/reach/publish-panel.html` })
    await driver.observe()
    const opened = await driver.act('click', { ref: driver.ref('button', 'Publish') })
    expect(opened.ok, opened.text).toBe(true)
    await driver.observe()
    expect(driver.view).toContain('Are you ready to publish?')
    const publish = driver.refs().filter((line) => line.role === 'button' && line.name === 'Publish')
    // The header's toggle and the panel's button; the panel's comes last.
    const last = publish.at(-1)
    if (!last) throw new Error(`No Publish button in:\n${driver.view}`)
    const published = await driver.act('click', { ref: last.ref })
    expect(published).toEqual({ ok: true, text: "Clicked button 'Publish'." })
    await driver.observe()
    expect(driver.view).toContain('is now live')
    await driver.close()
  })

  test('a menu positioned against an ancestor outside its overflow-hidden card is clickable where it hangs out', async () => {
    await page.setContent(`<div style="position:relative;padding-top:20px">
      <div style="overflow:hidden;height:40px;width:200px;border:1px solid">
        <button>Actions</button>
        <div style="position:absolute;top:70px;left:0"><button id="out">Delete</button></div>
      </div></div>`)
    expect(await hitAtMiddle('#out')).toBe(true)
    expect(await stateOf('#out')).toBe('ok')
  })

  test('the same menu inside a card that is its containing block is clipped, and said hidden', async () => {
    // Above the card's top, where no scrolling of the card reaches.
    await page.setContent(`<div style="position:relative;overflow:hidden;height:40px;width:200px;margin-top:100px;border:1px solid">
        <button>Actions</button>
        <div style="position:absolute;top:-60px;left:0"><button id="in">Delete</button></div>
      </div>`)
    expect(await hitAtMiddle('#in')).toBe(false)
    expect(await stateOf('#in')).toBe('hidden')
  })

  test('a fixed box inside a transformed, overflow-hidden box is held and clipped by it', async () => {
    await page.setContent(`<div style="transform:translateZ(0);overflow:hidden;height:40px;width:200px;margin-top:100px">
        <p>Card</p>
        <div style="position:fixed;top:-60px;left:0"><button id="held">Close</button></div>
      </div>
      <div style="overflow:hidden;height:40px;width:200px">
        <div style="position:fixed;top:200px;left:0"><button id="free">Open</button></div>
      </div>`)
    expect(await hitAtMiddle('#held')).toBe(false)
    expect(await stateOf('#held')).toBe('hidden')
    expect(await hitAtMiddle('#free')).toBe(true)
    expect(await stateOf('#free')).toBe('ok')
  })
})
