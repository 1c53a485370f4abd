import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { BrowserPool } from '../../../src/browser/launch/launcher.ts'
import { NetworkActivity } from '../../../src/browser/settle/network-activity.ts'
import { SettledPages } from '../../../src/browser/settle/settled-pages.ts'
import { libraryPage } from '../../support/bundle.ts'
import { type PageServer, serveFolder, startPageServer } from '../../support/page-server.ts'
import { borrowBrowser } from '../../support/suite/shared-browser.ts'
import { Driver, fixturesDir, parseView, testPool } from '../helpers/harness.ts'

/**
 * What an action sets off late (a menu's open delay, a debounce, a CSS
 * transition) is in the view that follows it; what is leaving (hidden, inert,
 * fading out) is not offered; a page that never stops (a ticker, a carousel)
 * still settles by its quiet, not by the cap. Pages written as careless sites
 * are: plain divs, no roles.
 */

let pool: BrowserPool
let browser: Browser
let server: PageServer
const signal = new AbortController().signal

beforeAll(async () => {
  server = await serveFolder(fixturesDir)
  pool = testPool()
  browser = await borrowBrowser()
})

afterAll(async () => {
  await pool?.close()
  await browser?.close()
  await server?.close()
})

async function open(page: string): Promise<Driver> {
  const driver = await Driver.open(pool, { startUrl: `${server.url}/late/${page}` })
  await driver.observe()
  return driver
}

function refOf(driver: Driver, name: string): string {
  const line = parseView(driver.view).find((entry) => entry.name === name || entry.line.includes(name))
  if (!line) throw new Error(`No ref for "${name}" in:\n${driver.view}`)
  return line.ref
}

function offered(driver: Driver, name: string): boolean {
  return parseView(driver.view).some((entry) => entry.line.includes(name))
}

describe('late effects of an action', () => {
  test('a submenu that opens 300 ms after the hover is in the next view, with refs, marked new', async () => {
    const driver = await open('submenu.html')
    expect(offered(driver, 'As PDF')).toBe(false)
    expect((await driver.act('hover', { ref: refOf(driver, 'Export') })).ok).toBe(true)
    await driver.observe()
    const pdf = parseView(driver.view).find((entry) => entry.line.includes('As PDF'))
    expect(pdf, driver.view).toBeDefined()
    expect(pdf?.isNew).toBe(true)
    await driver.close()
  })

  test('a suggestion list debounced by 350 ms is in the view after the typing', async () => {
    const driver = await open('suggest.html')
    const typed = await driver.act('type', { ref: refOf(driver, 'City'), text: 'Pa' })
    expect(typed.ok).toBe(true)
    await driver.observe()
    expect(offered(driver, 'Paris'), driver.view).toBe(true)
    expect(offered(driver, 'Parma')).toBe(true)
    expect(driver.view).not.toContain('Lisbon')
    await driver.close()
  })

  test("a month switch's 800 ms slide is waited for: only the new month's days are listed", async () => {
    const driver = await open('month-switch.html')
    expect((await driver.act('click', { ref: refOf(driver, 'Next month') })).ok).toBe(true)
    await driver.observe()
    expect(driver.view).toContain('Apr 30')
    expect(driver.view, driver.view).not.toContain('Mar 1')
    await driver.close()
  })
})

describe('what is leaving is not offered', () => {
  test('a dialog fading out after its close is not offered with refs', async () => {
    const driver = await open('fading-dialog.html')
    expect(offered(driver, 'Keep changes')).toBe(true)
    expect((await driver.act('click', { ref: refOf(driver, 'Close') })).ok).toBe(true)
    await driver.observe()
    expect(offered(driver, 'Keep changes'), driver.view).toBe(false)
    expect(offered(driver, 'Open settings')).toBe(true)
    await driver.close()
  })

  test('an aria-hidden region behind its backdrop, or an inert one, offers no refs', async () => {
    const driver = await open('hidden-regions.html')
    expect(offered(driver, 'Live tile'), driver.view).toBe(true)
    expect(offered(driver, 'Live button')).toBe(true)
    for (const name of ['Behind the modal', 'Hidden button', 'Inert tile', 'Inert button', 'Inert link']) {
      expect(offered(driver, name), `${name} in\n${driver.view}`).toBe(false)
    }
    await driver.close()
  })
})

describe('a page that never stops', () => {
  /** A page with its network watched, and the settler a session would use for it. */
  async function watchedPage(
    path: string,
  ): Promise<{ page: Page; settled: SettledPages; close: () => Promise<void> }> {
    const page = await browser.newPage()
    const activity = new NetworkActivity(page)
    await page.goto(`${server.url}/late/${path}`)
    const settled = new SettledPages((of) => (of === page ? activity : undefined))
    await settled.beforeObserving(async () => page, signal)
    return {
      page,
      settled,
      close: async () => {
        activity.detach()
        await page.close()
      },
    }
  }

  test('a 16 ms ticker and a carousel do not hold the settle to its cap', async () => {
    const { page, settled, close } = await watchedPage('tickers.html')
    for (let step = 1; step <= 6; step++) {
      settled.actionStarting(page)
      await page.click('#go')
      settled.actionEnded()
      const observed = await settled.beforeObserving(async () => page, signal)
      expect(observed.watched).toBe(true)
      expect(observed.quiet, `step ${step}`).toBe(true)
    }
    await close()
  })
})

// flatpickr 4.6 swaps its month at once (no slide), so what this guards is the view of a real picker: its
// arrows named by their class (red with class hints off) and its days' refs; the late wait is guarded by the
// 800 ms slide above.
describe('a real date picker (flatpickr)', () => {
  test('switching months shows the new month, whose day is then picked by its ref', async () => {
    const page = await libraryPage({
      entry: 'flatpickr-month.js',
      title: 'Booking',
      css: ['flatpickr/dist/flatpickr.css'],
      body: '<input id="when" aria-label="When"><p id="said"></p>',
    })
    const site = await startPageServer({ pages: { '/': page } })
    const driver = await Driver.open(pool, { startUrl: `${site.url}/` })
    await driver.observe()
    expect(driver.view).toContain('March')
    expect(driver.view).toContain('option "March" [selected]')
    // An icon-only arrow, named by its class.
    const next = parseView(driver.view).find((entry) => /next-month/.test(entry.line))
    expect(next, driver.view).toBeDefined()
    expect((await driver.act('click', { ref: next?.ref })).ok).toBe(true)
    await driver.observe()
    expect(driver.view, driver.view).toContain('option "April" [selected]')
    const day = parseView(driver.view).find((entry) => entry.line.includes('"April 30, 2026"'))
    expect(day, driver.view).toBeDefined()
    expect((await driver.act('click', { ref: day?.ref })).ok).toBe(true)
    await driver.observe()
    expect(driver.view).toContain('Picked 2026-04-30')
    expect(driver.view).toContain('textbox "When"')
    await driver.close()
    await site.close()
  })
})
