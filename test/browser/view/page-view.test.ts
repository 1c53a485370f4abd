import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { BrowserPool } from '../../../src/browser/launch/launcher.ts'
import { type PageServer as StaticServer, serveFolder } from '../../support/page-server.ts'
import { until } from '../../support/until.ts'
import { Driver, fixturesDir, parseView, testPool } from '../helpers/harness.ts'

let pool: BrowserPool
let server: StaticServer
let other: StaticServer

beforeAll(async () => {
  server = await serveFolder(fixturesDir)
  other = await serveFolder(fixturesDir)
  pool = testPool()
})

afterAll(async () => {
  await pool?.close()
  await server?.close()
  await other?.close()
})

async function open(page: string, options: Parameters<typeof Driver.open>[1] = {}): Promise<Driver> {
  const driver = await Driver.open(pool, { startUrl: `${server.url}/${page}`, ...options })
  await driver.observe()
  return driver
}

async function said(driver: Driver): Promise<string> {
  const result = await driver.act('execute_javascript', {
    script: "document.getElementById('said').textContent",
  })
  return JSON.parse(result.text.replace(/^Result: /, '')) as string
}

describe('the page view', () => {
  test('has a header with URL, title, tabs and scroll position, and a legend', async () => {
    const driver = await open('long-page.html')
    const observation = driver.last!
    expect(observation.url).toBe(`${server.url}/long-page.html`)
    expect(observation.title).toBe('Long page')
    expect(observation.tabs).toEqual([{ id: 't1', url: observation.url, title: 'Long page', active: true }])
    expect(driver.view).toMatch(/^URL: http:\/\/127\.0\.0\.1:\d+\/long-page\.html$/m)
    expect(driver.view).toMatch(/^Title: Long page$/m)
    // One tab says nothing the URL and title do not: no Tabs line.
    expect(driver.view).not.toMatch(/^Tabs:/m)
    expect(driver.view).toMatch(/^Scroll: 0\.0 pages above, \d+\.\d pages below$/m)
    expect(driver.view).toContain('Legend:')
    await driver.act('open_tab', { url: `${server.url}/effects/second.html` })
    await driver.observe()
    expect(driver.view).toMatch(/^Tabs: t1 "Long page" \| t2 "[^"]*" \(active\)$/m)
    await driver.close()
  })

  test('leaves out header lines that carry nothing on a tiny page', async () => {
    const driver = await open('effects/second.html')
    const header = driver.view
      .split('\n')
      .filter((line) => /^(URL|Title|Tabs|Scroll|Dialog open|Legend):/.test(line))
    expect(header.map((line) => line.split(':')[0])).toEqual(['URL', 'Title', 'Legend'])
    expect(driver.view).not.toContain('Scroll:')
    expect(driver.view).not.toContain('Tabs:')
    expect(driver.last!.tokens).toBeLessThan(80)
    await driver.close()
  })

  test('shows what is on screen in full and sums up what is below', async () => {
    const driver = await open('long-page.html')
    const refs = driver.refs()
    expect(refs.some((line) => line.name.startsWith('Link 1.0'))).toBe(true)
    expect(refs.some((line) => line.name.startsWith('Link 40.'))).toBe(false)
    expect(driver.view).toMatch(/^Below the viewport: \d+ interactive elements; headings: "Section \d+"/m)
    expect(driver.last!.refs).toBe(refs.length)
    await driver.close()
  })

  test('stays under the token cap, cutting on-screen lines and saying so', async () => {
    const driver = await open('long-page.html', { pageViewTokenCap: 300 })
    expect(driver.last!.tokens).toBeLessThanOrEqual(300)
    expect(driver.view.length).toBeLessThanOrEqual(1200)
    expect(driver.view).toContain('cut to fit the size limit')
    await driver.close()
  })

  test('keeps late on-screen overlays whatever the cap', async () => {
    const driver = await open('dropdowns.html', { pageViewTokenCap: 500 })
    expect(driver.view).toContain('cut to fit the size limit')
    await driver.act('click', { ref: driver.ref('button', 'Choose fruit') })
    await driver.observe()
    for (const fruit of ['Apple', 'Banana', 'Cherry']) expect(driver.ref('option', fruit)).toMatch(/^o\w+$/)
    expect(driver.last!.tokens).toBeLessThanOrEqual(500)

    await driver.act('click', { ref: driver.ref('option', 'Banana') })
    await driver.observe()
    await driver.act('type', { ref: driver.ref('textbox', 'City'), text: 'Par' })
    await driver.observe()
    const suggestion = parseView(driver.view).find((line) => line.line.includes('Parma'))
    expect(suggestion?.line).toContain('[clickable]')
    expect(driver.last!.tokens).toBeLessThanOrEqual(500)
    await driver.close()
  })

  test('keeps an open popover and a modal dialog whatever the cap, wherever they sit in the document', async () => {
    const driver = await open('top-layer.html', { pageViewTokenCap: 400 })
    expect(driver.view).toContain('cut to fit the size limit')
    await driver.act('click', { ref: driver.ref('button', 'Open popover') })
    await driver.observe()
    expect(driver.ref('button', 'Popover second')).toMatch(/^b\w+$/)
    expect(driver.last!.tokens).toBeLessThanOrEqual(400)
    await driver.act('execute_javascript', { script: "document.getElementById('tips').hidePopover()" })
    await driver.act('click', { ref: driver.ref('button', 'Open dialog') })
    await driver.observe()
    expect(driver.ref('button', 'Dialog leave')).toMatch(/^b\w+$/)
    expect(driver.last!.tokens).toBeLessThanOrEqual(400)
    await driver.close()
  })

  test('a page that breaks the globals the page scan uses still gets a view from its snapshot, which says so', async () => {
    const driver = await open('hostile-globals.html')
    expect(driver.view).not.toContain('could not be built')
    expect(driver.view).toMatch(/page scan failed/i)
    // Password fields stay masked without the scan that marks them.
    expect(driver.view).not.toContain('hunter2-secret')
    expect(driver.view).toMatch(/textbox "Password".*: ••••••/)
    const clicked = await driver.act('click', { ref: driver.ref('button', 'Pay now') })
    expect(clicked).toMatchObject({ ok: true })
    expect(await said(driver)).toBe('paid')
    expect(await driver.act('scroll', { direction: 'down' })).toMatchObject({ ok: true })
    // The wheel scrolls smoothly: the page moves a moment after the action.
    await until(async () => {
      const y = await driver.act('execute_javascript', { script: 'window.scrollY' })
      return Number(y.text.replace(/^Result: /, '')) > 0
    })
    await driver.close()
  })

  test('shows input kinds, states and values, and masks passwords', async () => {
    const driver = await open('forms.html')
    const view = driver.view
    expect(view).toMatch(/- textbox "Birthday" \[type=date\] \[ref=t\w+\]/)
    expect(view).toMatch(/- textbox "Password" \[type=password\] \[ref=\w+\]: ••••••/)
    expect(view).not.toContain('hunter2')
    expect(view).toMatch(/- textbox "Comments" \[multiline\]/)
    expect(view).toMatch(/- textbox "Notes" \[multiline\]/)
    expect(view).toMatch(/- textbox "Read only" \[readonly\] \[ref=\w+\]: locked/)
    expect(view).toMatch(/- radio "Free" \[checked\]/)
    expect(view).toMatch(/- textbox "Full name" \[ref=\w+\]: Ada/)
    expect(view).toMatch(
      /- combobox "Country" \[ref=\w+\]\n {2}- option "Choose…" \[selected\]\n {2}- option "France"/,
    )
    expect(view).toMatch(/- listbox "Toppings" \[multiple\]/)
    expect(view).toMatch(/- textbox "Email" \[type=email\] \[placeholder="you@example.com"\]/)

    await driver.act('click', { ref: driver.ref('checkbox', 'Subscribe') })
    await driver.observe()
    expect(driver.view).toMatch(/- checkbox "Subscribe" \[checked\]/)
    await driver.act('click', { ref: driver.ref('textbox', 'Full name') })
    await driver.observe()
    expect(driver.view).toMatch(/- textbox "Full name" \[active\]/)
    await driver.close()
  })

  test('gives nameless clickables, clickable text and hover-only pointers a ref with a hint', async () => {
    const driver = await open('clickables.html')
    const view = driver.view
    expect(view).toMatch(/- generic \[icon=trash\] \[clickable\] \[ref=g\w+\]/)
    expect(view).toMatch(/- img \[icon=settings-gear\] \[ref=i\w+\]/)
    expect(view).toMatch(/- button \[icon=close\] \[ref=b\w+\]/)
    expect(view).toMatch(/- generic "terms" \[clickable\] \[ref=g\w+\]/)

    for (const [ref, expected] of [
      [driver.ref('generic', 'terms'), 'terms'],
      [parseView(view).find((line) => line.line.includes('icon=trash'))!.ref, 'trash'],
      [parseView(view).find((line) => line.line.includes('icon=settings-gear'))!.ref, 'gear'],
      [parseView(view).find((line) => line.line.includes('Card without a role'))!.ref, 'card'],
      [parseView(view).find((line) => line.line.includes('icon=close'))!.ref, 'close'],
    ] as const) {
      const result = await driver.act('click', { ref })
      expect(result.ok, result.text).toBe(true)
      expect(await said(driver)).toBe(expected)
    }
    await driver.close()
  })

  test('shows expanded and collapsed states', async () => {
    const driver = await open('clickables.html')
    expect(driver.view).toMatch(/- button "Menu" \[collapsed\]/)
    expect(driver.view).toMatch(/- generic "More details" \[collapsed\]/)
    expect(driver.view).not.toContain('Hidden text')
    await driver.act('click', { ref: driver.ref('button', 'Menu') })
    await driver.act('click', { ref: driver.ref('generic', 'More details') })
    await driver.observe()
    expect(driver.view).toMatch(/- button "Menu" \[expanded\]/)
    expect(driver.view).toMatch(/- generic "More details" \[expanded\]/)
    expect(driver.view).toContain('Hidden text')
    await driver.close()
  })

  test("keeps refs stable across whole-DOM re-renders, never reuses a look-alike duplicate's ref, and marks what is new", async () => {
    const driver = await open('rerender.html')
    const before = driver.refs()
    const increment = driver.ref('button', 'Increment')
    const saves = before
      .filter((line) => line.role === 'button' && line.name === 'Save')
      .map((line) => line.ref)
    expect(saves).toHaveLength(2)
    expect(new Set(saves).size).toBe(2)
    expect(increment).toMatch(/^b[0-9a-z]{1,3}$/)
    expect(before.every((line) => !line.isNew)).toBe(true)

    const first = driver.last!.fingerprint
    await driver.observe()
    expect(driver.last!.fingerprint).toBe(first)

    expect((await driver.act('click', { ref: saves[1]! })).ok).toBe(true)
    await driver.observe()
    const after = driver.refs()
    // A unique button follows its role and name through the re-render.
    expect(after.find((line) => line.name === 'Increment')?.ref).toBe(increment)
    // Two identical buttons in the same place cannot be told apart once both are new nodes: new refs.
    const newSaves = after.filter((line) => line.name === 'Save').map((line) => line.ref)
    expect(newSaves).toHaveLength(2)
    for (const ref of newSaves) expect(saves).not.toContain(ref)
    expect(after.find((line) => line.name === 'Reset')?.isNew).toBe(true)
    expect(driver.last!.fingerprint).not.toBe(first)
    expect(driver.view).toContain('paragraph: Clicked 1 times')

    // A stale duplicate's ref refuses instead of clicking the look-alike.
    const stale = await driver.act('click', { ref: saves[0]! })
    expect(stale.ok).toBe(false)
    expect(stale.text).toMatch(new RegExp(`^Element ${saves[0]} changed since the page view you acted on`))
    expect(stale.text).toContain('read the new page view')

    expect((await driver.act('click', { ref: increment })).ok).toBe(true)
    await driver.observe()
    expect(
      (await driver.act('click', { ref: driver.refs().find((line) => line.name === 'Save')!.ref })).ok,
    ).toBe(true)
    await driver.observe()
    expect(driver.view).toContain('paragraph: Clicked 3 times')
    const count = await driver.act('execute_javascript', {
      script: "document.getElementById('count').textContent",
    })
    expect(count.text).toBe('Result: "3"')
    await driver.close()
  })

  test('reaches into iframes (nested and cross-origin) and acts there', async () => {
    const driver = await open(`frames/iframes.html?other=${encodeURIComponent(other.url)}`)
    const inner = driver.ref('button', 'Inner button')
    const deep = driver.ref('link', 'Deep link')
    const crossInput = driver.ref('textbox', 'Cross input')
    const crossButton = driver.ref('button', 'Cross button')
    expect((await driver.act('click', { ref: inner })).ok).toBe(true)
    expect((await driver.act('click', { ref: deep })).ok).toBe(true)
    expect((await driver.act('type', { ref: crossInput, text: 'hello' })).ok).toBe(true)
    expect((await driver.act('click', { ref: crossButton })).ok).toBe(true)
    await driver.observe()
    // Each click renamed its element: the view shows the new names only.
    const buttons = driver.names('button')
    expect(buttons).toEqual(expect.arrayContaining(['Inner clicked', 'Cross clicked: hello']))
    expect(buttons).not.toContain('Inner button')
    expect(buttons).not.toContain('Cross button')
    expect(driver.names('link')).toContain('Deep clicked')
    expect(driver.names('link')).not.toContain('Deep link')
    await driver.close()
  })

  test('covers shadow DOM', async () => {
    const driver = await open('shadow.html')
    expect(driver.view).toMatch(/- generic \[icon=star\] \[clickable\]/)
    expect((await driver.act('type', { ref: driver.ref('textbox', 'Shadow name'), text: 'Grace' })).ok).toBe(
      true,
    )
    expect((await driver.act('click', { ref: driver.ref('button', 'Shadow save') })).ok).toBe(true)
    await driver.observe()
    expect(driver.view).toContain('paragraph: saved Grace')
    const star = parseView(driver.view).find((line) => line.line.includes('icon=star'))!
    expect((await driver.act('click', { ref: star.ref })).ok).toBe(true)
    await driver.close()
  })

  test('marks items that appear after scrolling as new', async () => {
    const driver = await open('lazy-list.html')
    expect(driver.view).toContain('link "Product 1"')
    const scrolled = await driver.act('scroll', { direction: 'down', pages: 3 })
    expect(scrolled.ok, scrolled.text).toBe(true)
    await driver.observe()
    const lines = driver.refs()
    const later = lines.filter((line) => /^Product (2[1-9]|[3-9]\d)$/.test(line.name))
    const earlier = lines.filter((line) => /^Product (1?\d|20)$/.test(line.name))
    expect(later.length).toBeGreaterThan(0)
    expect(earlier.length).toBeGreaterThan(0)
    expect(later.every((line) => line.isNew)).toBe(true)
    expect(earlier.some((line) => line.isNew)).toBe(false)
    await driver.close()
  })
})
