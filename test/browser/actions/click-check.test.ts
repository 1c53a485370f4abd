import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { checkClickable, checkFailure } from '../../../src/browser/actions/click-check.ts'
import { firstElement } from '../../../src/browser/view/first-element.ts'
import type { PageServer } from '../../support/page-server.ts'
import { borrowBrowser } from '../../support/suite/shared-browser.ts'
import { startWidgetPages, widgetPaths } from '../../support/widget-pages.ts'

// A click's check reads the element its lookup found (a handle), not whatever a locator finds later:
// an element the page took out in between is said to be gone, not hidden. Real Chromium.

let browser: Browser
let page: Page
let widgets: PageServer
const signal = new AbortController().signal

beforeAll(async () => {
  browser = await borrowBrowser()
  page = await browser.newPage()
  widgets = await startWidgetPages()
}, 60_000)
afterAll(async () => {
  await browser?.close()
  await widgets?.close()
})

async function element(selector: string) {
  const found = await firstElement(page.locator(selector), signal)
  if (!found) throw new Error(`${selector} was not found`)
  return found
}

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

// Covered only when the hit test at the point the click will use lands on something else that would take
// the click: not a layer the pointer passes through, nor the element's own scroll container or its
// scrollbar. A real cover is still named.
describe('what counts as covered', () => {
  test('a transparent layer with pointer-events: none over the whole page covers nothing', async () => {
    await page.setContent(`<div id="veil" style="position:fixed;inset:0;z-index:9;background:rgba(255,255,255,0.01);pointer-events:none"></div>
      <button id="go" onclick="this.textContent = 'Gone'">Go</button>`)
    expect(await checkClickable(await element('#go'), signal)).toEqual({ state: 'ok' })
    await page.click('#go')
    expect(await page.textContent('#go')).toBe('Gone')
  })

  test('a link whose middle falls on its own scrolling list (between its two lines) is not covered', async () => {
    // In a monospace font 16 characters fill a line: "go" ends the first line, "ahead" starts the second.
    await page.setContent(`<div id="list" style="width:200px;height:120px;overflow:auto;font:20px/24px monospace">
      aaaa aaaa aa <a id="wrapped" href="#read">go ahead</a><div style="height:300px"></div></div>`)
    // The premise: the hit test at the link's middle finds the list, not the link.
    const middle = await page.evaluate(() => {
      const box = document.getElementById('wrapped')?.getBoundingClientRect()
      return box ? document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2)?.id : undefined
    })
    expect(middle).toBe('list')
    expect(await checkClickable(await element('#wrapped'), signal)).toMatchObject({ state: 'ok' })
    await page.click('#wrapped')
    expect(await page.evaluate(() => location.hash)).toBe('#read')
  })

  test("a row half under AG Grid's own horizontal scrollbar is scrolled out from under it and double-clicked there", async () => {
    await page.goto(`${widgets.url}${widgetPaths.agGrid}`)
    await page.waitForSelector('.ag-row[row-index="7"]')
    // AG Grid sizes its own scrollbar a frame or more after the rows appear; on a busy machine later still.
    await page.waitForFunction(() => {
      const bar = document.querySelector('.ag-body-horizontal-scroll-viewport')?.getBoundingClientRect()
      return bar !== undefined && bar.height > 0
    })
    const under = await page.evaluate(() => {
      const grid = document.querySelector('[role=grid]') as HTMLElement
      const bar = document.querySelector('.ag-body-horizontal-scroll-viewport')?.getBoundingClientRect()
      const row = document.querySelector('.ag-row[row-index="7"]')?.getBoundingClientRect()
      if (!bar || !row) return undefined
      grid.scrollTop += row.top + row.height / 2 - (bar.top + bar.height / 2)
      const cell = document.querySelector('.ag-row[row-index="7"] [col-id="name"]')?.getBoundingClientRect()
      if (!cell) return undefined
      return document.elementFromPoint(cell.x + cell.width / 2, cell.y + cell.height / 2)?.className
    })
    // The premise: the cell's middle is on the scrollbar.
    expect(under).toMatch(/ag-body-horizontal-scroll/)
    const cell = await element('.ag-row[row-index="7"] [col-id="name"]')
    const check = await checkClickable(cell, signal)
    expect(check.state, check.by).toBe('ok')
    await cell.dblclick(check.position ? { position: check.position } : {})
    expect(await page.textContent('#log')).toBe('Opened: Customer 8')
  })

  test('a modal backdrop covers the page: the check says so, naming it and the dialog it holds', async () => {
    await page.setContent(`<button id="behind">Buy</button>
      <div class="backdrop shade" style="position:fixed;inset:0;z-index:9;background:rgba(0,0,0,0.4)">
        <div role="dialog" aria-label="Sign in" style="margin:120px auto;width:200px;background:white">
          <button>Close</button></div></div>`)
    const check = await checkClickable(await element('#behind'), signal)
    expect(check.state).toBe('covered')
    expect(check.by).toMatch(/^div\.backdrop\.shade .*, which holds dialog "Sign in"$/)
    expect(checkFailure(check)).toMatch(/^it is covered by div\.backdrop\.shade/)
  })
})
