import type { Browser, CDPSession } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { ListenerLookup } from '../../../src/browser/view/listeners/listener-lookup.ts'
import { buildPageView } from '../../../src/browser/view/page-view.ts'
import { RefRegistry } from '../../../src/browser/view/stable-refs.ts'
import { borrowBrowser } from '../../support/suite/shared-browser.ts'
import { Driver, servedFixtures } from '../helpers/harness.ts'

// The listener lookup files only what changed since the last view (listener-lookup.ts): each view must
// still show the listeners the page has now, however they came and went, and whatever the page did to
// what the lookup left on its document.

const fixtures = servedFixtures()

/** The latest view's line naming `text`. */
function lineOf(driver: Driver, text: string): string {
  return driver.view.split('\n').find((line) => line.includes(text)) ?? `(no line for ${text})`
}

async function press(driver: Driver, name: string): Promise<void> {
  const done = await driver.act('click', { ref: driver.ref('button', name) })
  expect(done.ok, done.text).toBe(true)
  await driver.observe()
}

describe('views while listeners come and go', () => {
  test('a listener added, changed or taken away shows in the next view', async () => {
    const driver = await Driver.open(fixtures.pool, { startUrl: `${fixtures.url}/listeners/changing.html` })
    await driver.observe()
    expect(lineOf(driver, 'notes.txt')).not.toMatch(/\[ref=/)

    await press(driver, 'Arm the file')
    expect(lineOf(driver, 'notes.txt')).toMatch(/\[contextmenu\].*\[ref=/)

    await press(driver, 'Open on double click')
    expect(lineOf(driver, 'notes.txt')).toMatch(/\[dblclick\]/)
    expect(lineOf(driver, 'notes.txt')).toMatch(/\[contextmenu\]/)
    const opened = await driver.act('click', {
      ref: /\[ref=(\w+)\]/.exec(lineOf(driver, 'notes.txt'))?.[1] ?? '',
      count: 2,
    })
    expect(opened.ok, opened.text).toBe(true)
    await driver.observe()
    expect(driver.view).toContain('Status: opened notes.txt')

    await press(driver, 'Disarm the file')
    expect(lineOf(driver, 'notes.txt')).not.toMatch(/\[ref=|\[contextmenu\]|\[dblclick\]/)

    // Another document: the handles kept on this one's document and window are gone with it.
    const left = await driver.act('click', { ref: driver.ref('link', 'Another page') })
    expect(left.ok, left.text).toBe(true)
    await driver.observe()
    expect(driver.view).toContain('Title: Listeners')
    expect(lineOf(driver, 'notes.txt')).toMatch(/\[contextmenu\].*\[ref=/)
    await driver.close()
  })

  test('a listener added in a same-origin iframe shows, and so do all after the page wipes what was left on its document', async () => {
    const driver = await Driver.open(fixtures.pool, { startUrl: `${fixtures.url}/listeners/changing.html` })
    await driver.observe()
    await press(driver, 'Arm the file')
    expect(lineOf(driver, 'notes.txt')).toMatch(/\[contextmenu\]/)
    expect(lineOf(driver, 'Apple')).not.toMatch(/\[dblclick\]/)

    await press(driver, 'Arm the frame')
    expect(lineOf(driver, 'Apple')).toMatch(/\[dblclick\].*\[ref=/)

    await press(driver, 'Wipe expando properties')
    expect(lineOf(driver, 'notes.txt')).toMatch(/\[contextmenu\].*\[ref=/)
    expect(lineOf(driver, 'Apple')).toMatch(/\[dblclick\].*\[ref=/)
    await driver.close()
  })
})

describe('views of a page whose own script changes its listeners', () => {
  let browser: Browser
  beforeAll(async () => {
    browser = await borrowBrowser()
  })
  afterAll(async () => {
    await browser?.close()
  })

  test('a listener added or taken away with no action between two views shows in the second', async () => {
    // The scan starts on what the last lookup left before this one answers: it must be taken again when
    // the page changed its listeners meanwhile, which no action of the run's set off.
    const page = await browser.newPage()
    await page.setContent(`<ul><li>Apple</li><li>Pear</li></ul>
      <script>
        document.querySelector('li').addEventListener('dblclick', () => {})
        window.menu = () => {}
      </script>`)
    const registry = new RefRegistry()
    const signal = new AbortController().signal
    const lineIn = async (text: string) =>
      (await buildPageView(page, registry, { tabs: [] }, signal)).text
        .split('\n')
        .find((line) => line.includes(text)) ?? `(no line for ${text})`
    expect(await lineIn('Apple')).toMatch(/\[dblclick\].*\[ref=/)
    expect(await lineIn('Pear')).not.toMatch(/\[ref=/)
    await page.evaluate(() =>
      document
        .querySelectorAll('li')[1]
        ?.addEventListener('contextmenu', (window as unknown as { menu: () => void }).menu),
    )
    expect(await lineIn('Pear')).toMatch(/\[contextmenu\].*\[ref=/)
    expect(await lineIn('Pear')).toMatch(/\[contextmenu\].*\[ref=/)
    await page.evaluate(() =>
      document
        .querySelectorAll('li')[1]
        ?.removeEventListener('contextmenu', (window as unknown as { menu: () => void }).menu),
    )
    expect(await lineIn('Pear')).not.toMatch(/\[contextmenu\]|\[ref=/)
    expect(await lineIn('Apple')).toMatch(/\[dblclick\].*\[ref=/)
    await page.close()
  })

  test('a view of a page whose listeners did not change files no element; one new listener files one', async () => {
    {
      const page = await browser.newPage()
      await page.setContent(
        `<ul>${Array.from({ length: 50 }, (_, i) => `<li>Item ${i}</li>`).join('')}</ul>
        <script>for (const li of document.querySelectorAll('li')) li.addEventListener('dblclick', () => {})</script>`,
      )
      // Every CDP message the lookup sends, by method (the prototype is Playwright's CDPSession's).
      const sent: string[] = []
      const probe = await page.context().newCDPSession(page)
      const prototype = Object.getPrototypeOf(probe) as CDPSession
      const send = prototype.send
      prototype.send = function (this: CDPSession, ...args: Parameters<CDPSession['send']>) {
        sent.push(args[0])
        return send.apply(this, args)
      } as CDPSession['send']
      try {
        const lookup = new ListenerLookup()
        const resolves = async () => {
          sent.length = 0
          expect(await lookup.prepare(page)).toBeDefined()
          return sent.filter((method) => method === 'DOM.resolveNode').length
        }
        expect(await resolves()).toBe(50)
        expect(await resolves()).toBe(0)
        await page.evaluate(() => document.querySelector('li')?.addEventListener('contextmenu', () => {}))
        expect(await resolves()).toBe(1)
        await page.evaluate(() => document.querySelectorAll('li')[1]?.remove())
        expect(await resolves()).toBe(1)
        expect(await resolves()).toBe(0)
      } finally {
        prototype.send = send
      }
      await page.close()
    }
  })
})
