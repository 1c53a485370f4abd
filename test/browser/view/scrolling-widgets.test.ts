import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { BrowserPool } from '../../../src/browser/launch/launcher.ts'
import type { PageServer } from '../../support/page-server.ts'
import { startWidgetPages, widgetPaths } from '../../support/widget-pages.ts'
import { Driver, testPool } from '../helpers/harness.ts'

// Widgets that scroll their own content, driven through the session's view and tools in real Chromium:
// what a scrolling container hides is off screen (whether the tree holds its items in it or beside it), scroll on a widget scrolls its content, find reaches rows
// a virtualized list has not rendered, a grid's cells have refs, and a click scrolls its element into view
// within its grid before it checks what is on top.

let pool: BrowserPool
let pages: PageServer
let driver: Driver

beforeAll(async () => {
  pages = await startWidgetPages()
  pool = testPool()
  driver = await Driver.open(pool)
}, 60_000)
afterAll(async () => {
  await driver?.close()
  await pool?.close()
  await pages?.close()
})

async function open(path: string): Promise<void> {
  await driver.act('navigate', { url: `${pages.url}${path}` })
  await driver.observe()
}

describe('a list that scrolls inside its widget', () => {
  test('shows the options in sight, counts the rest on its line, and scrolls from the listbox', async () => {
    await open(widgetPaths.fruitList)
    expect(driver.names('option')).toEqual([
      'Apple',
      'Apricot',
      'Banana',
      'Blackberry',
      'Blueberry',
      'Cherry',
      'Coconut',
    ])
    // The options just past the fold are named on the list's line: what scrolling it shows.
    expect(driver.view).toContain(
      '[0 options above, 21 below; just below: "Cranberry", "Date", "Dragonfruit" (+18 more)]',
    )
    expect(driver.view).not.toMatch(/Below the viewport|more options/)

    const scrolled = await driver.act('scroll', {
      direction: 'down',
      pages: 5,
      ref: driver.ref('listbox', 'Fruits'),
    })
    expect(scrolled).toMatchObject({ ok: true })
    expect(scrolled.ok && scrolled.text).toContain('21 items above, 0 below')
    await driver.observe()
    expect(driver.names('option')).toEqual([
      'Orange',
      'Papaya',
      'Peach',
      'Pear',
      'Plum',
      'Quince',
      'Raspberry',
    ])
    expect(driver.view).toMatch(
      /\[21 options above, 0 below; just above: \(\+18 more\) "\w+", "\w+", "\w+"\]/,
    )
    expect(driver.view).not.toMatch(/Above the viewport|more options/)
    expect(await driver.act('click', { ref: driver.ref('option', 'Raspberry') })).toMatchObject({ ok: true })
    await driver.observe()
    expect(driver.view).toContain('Chosen: Raspberry')
  })

  test("react-select's menu scrolls from its listbox to the last option", async () => {
    await open(widgetPaths.reactSelect)
    await driver.act('click', { ref: driver.ref('combobox', 'Fruit') })
    await driver.observe()
    // The menu is 180 px tall: the options in it, not those below it that the screen would still show.
    const shown = driver.names('option')
    expect(shown.slice(0, 2)).toEqual(['Apple', 'Apricot'])
    expect(shown.length).toBeLessThanOrEqual(7)
    expect(shown).not.toContain('Fig')
    // Other attributes may stand before [scrollable] (the listener lookup tags what the page listens on).
    expect(driver.view).toMatch(
      /listbox (\[\w+\] )*\[scrollable\] \[0 options above, \d+ below; just below: "\w+", "\w+", "\w+" \(\+\d+ more\)\]/,
    )
    await driver.act('scroll', { direction: 'down', pages: 10, ref: driver.ref('listbox', '') })
    await driver.observe()
    // Scrolled to its end, the menu shows its last options and no longer its first.
    expect(driver.names('option')).toContain('Raspberry')
    expect(driver.names('option')).not.toContain('Apple')
    expect(driver.view).toMatch(
      /listbox (\[\w+\] )*\[scrollable\] \[\d+ options above, 0 below; just above: \(\+\d+ more\) "\w+", "\w+", "\w+"\]/,
    )
    expect(await driver.act('click', { ref: driver.ref('option', 'Raspberry') })).toMatchObject({ ok: true })
    await driver.observe()
    expect(driver.view).toContain('Chosen: Raspberry')
  })
})

describe('a long list whose scrolling viewport the snapshot puts beside its options', () => {
  test('Radix Select scrolled to its end shows the options in sight, and counts the others above', async () => {
    await open(widgetPaths.radixSelect)
    await driver.act('click', { ref: driver.ref('combobox', 'Country') })
    await driver.observe()
    // Open, the first options fill the viewport; the others are counted on the viewport's line, not cut.
    expect(driver.names('option').slice(0, 3)).toEqual(['Argentina', 'Australia', 'Austria'])
    expect(driver.names('option')).not.toContain('Vietnam')
    expect(driver.view).toMatch(/\[scrollable\] \[0 options above, \d+ below; just below: "\w+", /)
    expect(driver.view).not.toMatch(/more options|Below the viewport/)

    // Radix scrolls its focused option back into view when its scroll-up button appears: a scripted
    // scroll alone is undone, and the scroll says how it got there.
    const scrolled = await driver.act('scroll', {
      direction: 'down',
      pages: 10,
      ref: driver.ref('listbox', ''),
    })
    expect(scrolled).toMatchObject({ ok: true })
    expect(scrolled.ok && scrolled.text).toMatch(/^Scrolled the scrollable presentation down .*\b0 below\b/)
    await driver.observe()
    const shown = driver.names('option')
    expect(shown.slice(-3)).toEqual(['Sweden', 'Uruguay', 'Vietnam'])
    expect(shown).not.toContain('Argentina')
    expect(shown.length).toBeLessThan(12)
    expect(driver.view).toMatch(
      new RegExp(
        `\\[scrollable\\] \\[${28 - shown.length} options above, 0 below; just above: \\(\\+\\d+ more\\) "`,
      ),
    )
    expect(driver.view).not.toMatch(/more options/)

    const further = await driver.act('scroll', { direction: 'down', ref: driver.ref('listbox', '') })
    expect(further).toMatchObject({ ok: false })
    expect(!further.ok && further.text).toContain('already at the bottom')
    expect(await driver.act('click', { ref: driver.ref('option', 'Vietnam') })).toMatchObject({ ok: true })
    await driver.observe()
    expect(driver.view).toContain('Ships to: Vietnam')
  })

  test('a careless listbox whose viewport is role=presentation: its lifted options are clipped by it', async () => {
    await open(widgetPaths.countryList)
    expect(driver.names('option')).toEqual([
      'Argentina',
      'Australia',
      'Austria',
      'Belgium',
      'Brazil',
      'Canada',
      'Chile',
    ])
    expect(driver.view).toMatch(
      /\[0 options above, 21 below; just below: "\w+", "\w+", "\w+" \(\+18 more\)\]/,
    )
    // The arrow below the viewport is the listbox's own part, not an option the viewport hides.
    expect(driver.view).toMatch(/generic \[clickable\] \[ref=\w+\]: ▼/)
    expect(driver.view).not.toMatch(/more options|Below the viewport/)

    await driver.act('scroll', { direction: 'down', pages: 5, ref: driver.ref('listbox', 'Countries') })
    await driver.observe()
    expect(driver.names('option')).toEqual([
      'Peru',
      'Poland',
      'Portugal',
      'Spain',
      'Sweden',
      'Uruguay',
      'Vietnam',
    ])
    expect(driver.view).toMatch(
      /\[21 options above, 0 below; just above: \(\+18 more\) "\w+", "\w+", "\w+"\]/,
    )
    expect(await driver.act('click', { ref: driver.ref('option', 'Vietnam') })).toMatchObject({ ok: true })
    await driver.observe()
    expect(driver.view).toContain('Chosen: Vietnam')
  })
})

describe('a list that will not stay scrolled', () => {
  test('scroll says the page scrolls it back, not that it is at its end', async () => {
    await open(widgetPaths.countryList)
    const hostile = await driver.act('execute_javascript', {
      script: `const viewport = document.getElementById('viewport')
        viewport.addEventListener('scroll', () => { viewport.scrollTop = 0 })
        return 'set'`,
    })
    expect(hostile).toMatchObject({ ok: true })
    const scrolled = await driver.act('scroll', {
      direction: 'down',
      ref: driver.ref('listbox', 'Countries'),
    })
    expect(scrolled).toMatchObject({ ok: false })
    expect(!scrolled.ok && scrolled.text).toMatch(
      /^Could not scroll down: the page scrolls the scrollable presentation back, by script and by the mouse wheel \(0\.0 screens above/,
    )
    await driver.observe()
    expect(driver.names('option')[0]).toBe('Argentina')
  })

  test('a page that undoes the scripted scroll, then part of the wheel’s, is given another turn of the wheel', async () => {
    await open(widgetPaths.countryList)
    // As Radix's late reaction did once on a busy machine: the scripted scroll is undone, then the wheel's
    // first scroll is taken back to 112 px, after which the list stays where it is put.
    const careless = await driver.act('execute_javascript', {
      script: `const viewport = document.getElementById('viewport')
        const undo = [0, 112]
        let setTo
        viewport.addEventListener('scroll', () => {
          if (viewport.scrollTop === setTo) return
          const to = undo.shift()
          if (to !== undefined) viewport.scrollTop = setTo = to
        })
        return 'set'`,
    })
    expect(careless).toMatchObject({ ok: true })
    const scrolled = await driver.act('scroll', {
      direction: 'down',
      pages: 5,
      ref: driver.ref('listbox', 'Countries'),
    })
    expect(scrolled).toMatchObject({ ok: true })
    expect(scrolled.ok && scrolled.text).toMatch(
      /^Scrolled the scrollable presentation down with the mouse wheel \(the page undid a scripted scroll\) .*\b0 below\b/,
    )
    await driver.observe()
    expect(driver.names('option').at(-1)).toBe('Vietnam')
  })
})

describe('a data grid with its own scrollbars', () => {
  test('gives its cells refs, double-clicks a row partly under its scrollbar, and edits a cell', async () => {
    await open(widgetPaths.agGrid)
    expect(driver.view).toMatch(
      /grid (\[\w+\] )*\[scrollable\] \[0 rows above, ~?\d+ below; more to the right; just below: "\d+ Customer \d+ /,
    )
    // Row 8's middle goes under the grid's horizontal scrollbar, which AG Grid lays over its rows when
    // the browser's scrollbars take no room (as in headless Chromium).
    const placed = await driver.act('execute_javascript', {
      script: `const grid = document.querySelector('[role=grid]')
        const bar = document.querySelector('.ag-body-horizontal-scroll-viewport').getBoundingClientRect()
        const row = document.querySelector('.ag-row[row-index="7"]').getBoundingClientRect()
        grid.scrollTop += row.top + row.height / 2 - (bar.top + bar.height / 2)
        return grid.scrollTop`,
    })
    expect(placed).toMatchObject({ ok: true })
    await driver.observe()
    const opened = await driver.act('click', { ref: driver.ref('gridcell', 'Customer 8'), count: 2 })
    expect(opened).toMatchObject({ ok: true })
    await driver.observe()
    expect(driver.view).toContain('Opened: Customer 8')
    const typed = await driver.act('type', { ref: driver.ref('textbox', /.*/), text: 'Zed', submit: true })
    expect(typed).toMatchObject({ ok: true })
    await driver.observe()
    expect(driver.view).toContain('Saved: name of')
    expect(driver.names('gridcell')).toContain('Zed')
  })
})

describe('a virtualized list of thousands of rows', () => {
  test('find scrolls it until the row is rendered and gives it a ref', async () => {
    await open(widgetPaths.reactWindow)
    expect(driver.view).toMatch(
      /list \[scrollable\] \[0 items above, ~\d{4} below; just below: "Invoice #000\d\d"/,
    )
    const found = await driver.act('find', { text: 'Invoice #01234' })
    expect(found).toMatchObject({ ok: true })
    const ref = /\[ref=(\w+)\]/.exec(found.ok ? found.text : '')?.[1]
    expect(ref).toBeDefined()
    expect(await driver.act('click', { ref })).toMatchObject({ ok: true })
    await driver.observe()
    expect(driver.view).toContain('Opened: Invoice #01234')
  })
})
