import { describe, expect, test } from 'vitest'
import { ListenerLookup, maxListenerElements } from '../../../src/browser/view/listeners/listener-lookup.ts'
import { libraryPage } from '../../support/bundle.ts'
import { startPageServer } from '../../support/page-server.ts'
import { borrowBrowser } from '../../support/suite/shared-browser.ts'
import { startWidgetPages, widgetPaths } from '../../support/widget-pages.ts'
import { Driver, parseView, servedFixtures } from '../helpers/harness.ts'

// Elements a page made interactive by addEventListener alone (no role, no pointer cursor, no onclick
// attribute): the browser's own listener list gives them a ref and says what they take.

const fixtures = servedFixtures()

async function open(page: string): Promise<Driver> {
  const driver = await Driver.open(fixtures.pool, { startUrl: `${fixtures.url}/${page}` })
  await driver.observe()
  return driver
}

/** The ref of the latest view's line that matches `pattern`, found by reading the view as a model would. */
function refOf(driver: Driver, pattern: RegExp): string {
  // A name is shown before the attributes, text after them: either way round.
  const line = parseView(driver.view).find((candidate) =>
    pattern.test(candidate.line.replace(/^( *[-*] \w+) ("(?:[^"\\]|\\.)*") (.*)$/, '$1 $3 $2')),
  )
  if (!line) throw new Error(`No line matching ${pattern} in:\n${driver.view}`)
  return line.ref
}

async function status(driver: Driver): Promise<string> {
  await driver.observe()
  return /(Status: [^\n]*)/.exec(driver.view)?.[1] ?? driver.view
}

describe('elements interactive by listeners alone', () => {
  test('a plain list item with a contextmenu listener is [contextmenu], and its glyph-only menu entries are named', async () => {
    const driver = await open('listeners.html')
    expect(driver.view).toMatch(/listitem \[contextmenu\] \[ref=\w+\]: notes\.txt/)
    const opened = await driver.act('click', {
      ref: refOf(driver, /\[contextmenu\].*: notes\.txt/),
      button: 'right',
    })
    expect(opened.ok, opened.text).toBe(true)
    await driver.observe()
    expect(driver.view).toMatch(/\[icon=trash\] \[clickable\] \[ref=/)
    // A class naming the icon, not its style or size (fa-solid, fa-lg); an icon set's data attribute.
    expect(driver.view).toMatch(/\[icon=file-export\] \[clickable\] \[ref=/)
    expect(driver.view).toMatch(/\[icon=share-nodes\] \[clickable\] \[ref=/)
    // The SVG's title names its entry (Playwright reads it as the name).
    expect(driver.view).toMatch(/generic "Save file" \[clickable\] \[ref=/)
    const trashed = await driver.act('click', { ref: refOf(driver, /\[icon=trash\]/) })
    expect(trashed.ok, trashed.text).toBe(true)
    expect(await status(driver)).toBe('Status: trash notes.txt')
    await driver.close()
  })

  test('a plain cell with a dblclick listener is [dblclick] and becomes an editor on a double click', async () => {
    const driver = await open('listeners.html')
    const cell = refOf(driver, /cell \[dblclick\].*"Apple"/)
    const edited = await driver.act('click', { ref: cell, count: 2 })
    expect(edited.ok, edited.text).toBe(true)
    await driver.observe()
    const field = driver.ref('textbox', 'Edit cell')
    const typed = await driver.act('type', { ref: field, text: 'Pear', submit: true })
    expect(typed.ok, typed.text).toBe(true)
    expect(await status(driver)).toBe('Status: edited Pear')
    await driver.close()
  })

  test('a card pressed with pointer events is [draggable], and the sections it can land in are [droppable]', async () => {
    const driver = await open('listeners.html')
    const card = refOf(driver, /\[draggable\].*Write the report/)
    const sections = parseView(driver.view).filter((line) => line.line.includes('[droppable]'))
    expect(sections.length).toBeGreaterThanOrEqual(2)
    // The empty column: the first nameless drop target (the card's own column is named by the card).
    const empty = sections.find((line) => line.name === '')
    expect(empty).toBeDefined()
    const moved = await driver.act('drag', { ref: card, to: empty?.ref })
    expect(moved.ok, moved.text).toBe(true)
    expect(await status(driver)).toBe('Status: moved to done')
    await driver.close()
  })

  test('an HTML5 drop target with dragover and drop listeners is [droppable]', async () => {
    const driver = await open('listeners.html')
    const bin = refOf(driver, /\[droppable\].*Drop parcels here/)
    const dropped = await driver.act('drag', { ref: refOf(driver, /\[draggable\].*Parcel/), to: bin })
    expect(dropped.ok, dropped.text).toBe(true)
    expect(await status(driver)).toBe('Status: dropped parcel')
    await driver.close()
  })

  test("a listener on the document makes nothing clickable: the page's text stays text", async () => {
    const driver = await open('listeners.html')
    expect(driver.view).toMatch(/paragraph: Status: idle/)
    expect(driver.view).not.toMatch(/Status: idle.*\[ref=/)
    expect(driver.view).not.toMatch(/cell "Name" .*\[ref=/)
    await driver.close()
  })
})

describe('a real library: SortableJS', () => {
  test('the items of a list SortableJS sorts are [draggable] and the list [droppable]: a drag reorders it', async () => {
    const html = await libraryPage({ entry: 'sortable-list.js', title: 'Groceries' })
    const library = await startPageServer({ pages: { '/': html } })
    const driver = await Driver.open(fixtures.pool, { startUrl: `${library.url}/` })
    try {
      await driver.observe()
      expect(driver.view).toMatch(/list \[droppable\] \[ref=/)
      const apples = refOf(driver, /listitem \[draggable\].*Apples/)
      const cherries = refOf(driver, /listitem \[draggable\].*Cherries/)
      const moved = await driver.act('drag', { ref: apples, to: cherries })
      expect(moved.ok, moved.text).toBe(true)
      await driver.observe()
      expect(driver.view).toMatch(
        /Order: Bananas, Cherries, Apples, Dates|Order: Bananas, Apples, Cherries, Dates/,
      )
      expect(driver.view).not.toMatch(/Order: Apples, Bananas/)
    } finally {
      await driver.close()
      await library.close()
    }
  })
})

// A knob dragged as modern pages do it: pointer capture, so every listener is on the knob itself.
const knobPage = `<!doctype html><title>Knob</title>
<p id="said">Knob at 0</p>
<div id="knob" style="position:relative;left:0;width:60px;height:40px;background:#ccc">Knob</div>
<script>
  const knob = document.getElementById('knob')
  let from = null
  knob.addEventListener('pointerdown', (event) => { from = event.clientX - knob.offsetLeft; knob.setPointerCapture(event.pointerId) })
  knob.addEventListener('pointermove', (event) => { if (from !== null) knob.style.left = event.clientX - from + 'px' })
  knob.addEventListener('pointerup', () => { from = null; document.getElementById('said').textContent = 'Knob at ' + knob.offsetLeft })
</script>`

describe('a press is not a drag', () => {
  test('a div dragged with pointer capture (its press, moves and release heard on itself) is [draggable]', async () => {
    const site = await startPageServer({ pages: { '/': knobPage } })
    const driver = await Driver.open(fixtures.pool, { startUrl: `${site.url}/` })
    try {
      await driver.observe()
      const moved = await driver.act('drag', {
        ref: refOf(driver, /\[draggable\].*Knob/),
        by: { x: 120, y: 0 },
      })
      expect(moved.ok, moved.text).toBe(true)
      await driver.observe()
      expect(driver.view).toMatch(/Knob at 1\d\d/)
    } finally {
      await driver.close()
      await site.close()
    }
  })

  test("react-select's menu and AG Grid's cells hear presses and hovers for other reasons: neither is [draggable]", async () => {
    const widgets = await startWidgetPages()
    const driver = await Driver.open(fixtures.pool)
    try {
      await driver.act('navigate', { url: `${widgets.url}${widgetPaths.reactSelect}` })
      await driver.observe()
      await driver.act('click', { ref: driver.ref('combobox', 'Fruit') })
      await driver.observe()
      // The menu listens for touches and the wheel to keep its scroll to itself.
      expect(driver.view).toMatch(/listbox .*\[scrollable\]/)
      expect(driver.view).not.toMatch(/\[draggable\]|\[droppable\]/)

      await driver.act('navigate', { url: `${widgets.url}${widgetPaths.agGrid}` })
      await driver.observe()
      expect(driver.names('gridcell')).toContain('Customer 1')
      // Cells hear mousedown and mousemove (focus, hover), the grid pointerdown and touchmove; the document
      // hears no move. Only the columns' resize handles (a col-resize cursor) are dragged.
      const dragged = parseView(driver.view).filter((line) => line.line.includes('[draggable]'))
      for (const line of dragged)
        expect(line.line, driver.view).toMatch(/^ *[-*] presentation (\[dblclick\] )?\[draggable\]/)
      expect(driver.view).not.toMatch(/\[droppable\]/)
    } finally {
      await driver.close()
      await widgets.close()
    }
  })
})

// 10,000 rows of five elements; every 10th row listens for double clicks: 1,000 listening elements, past the
// lookup's cap of 600 per target (each one found costs the browser a lookup). All but the first 300 rows are
// in a hidden section: the lookup walks and hands over hidden listeners too.
const bigPage = `<!doctype html><title>Big</title><p id="said">Nothing opened</p><div id="root"></div>
<div id="rest" hidden></div><script>
for (let i = 0; i < 10000; i++) {
  const row = document.createElement('div')
  row.innerHTML = '<span>Row ' + i + '</span> <span>b</span> <i>c</i> <b>d</b>'
  if (i % 10 === 0) row.addEventListener('dblclick', () => { document.getElementById('said').textContent = 'Opened row ' + i })
  document.getElementById(i < 300 ? 'root' : 'rest').appendChild(row)
}
</script>`

describe('a page of 50,000 elements', () => {
  test("the lookup hands over at most its cap, the document's first: the listening rows in sight", async () => {
    const browser = await borrowBrowser()
    try {
      const page = await browser.newPage()
      await page.setContent(bigPage)
      const handoff = (await new ListenerLookup().prepare(page))?.handoff
      expect(handoff).toBeDefined()
      const held = await page.evaluate((key) => {
        const held = Object.getOwnPropertyDescriptor(document, key)?.value as
          | { elements: Map<Element, string[]> }
          | undefined
        const map = held?.elements ?? new Map<Element, string[]>()
        const rows = [...map.keys()].map((row) => Number(/Row (\d+)/.exec(row.textContent ?? '')?.[1]))
        return {
          elements: document.querySelectorAll('*').length,
          count: map.size,
          first: rows[0],
          last: Math.max(...rows),
        }
      }, handoff?.key ?? '')
      expect(held.elements).toBeGreaterThan(50_000)
      expect(held).toMatchObject({
        count: maxListenerElements,
        first: 0,
        last: (maxListenerElements - 1) * 10,
      })
    } finally {
      await browser.close()
    }
  }, 120_000)
})
