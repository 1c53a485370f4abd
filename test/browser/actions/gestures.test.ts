import { describe, expect, test } from 'vitest'
import { Driver, servedFixtures } from '../helpers/harness.ts'

const fixtures = servedFixtures()

async function open(page: string): Promise<Driver> {
  const driver = await Driver.open(fixtures.pool, { startUrl: `${fixtures.url}/${page}` })
  await driver.observe()
  return driver
}

/** The ref of the line of the latest view whose text (after the colon) is `text`. */
function refOfText(driver: Driver, role: string, text: string): string {
  const line = driver
    .refs()
    .find((candidate) => candidate.role === role && candidate.line.endsWith(`: ${text}`))
  if (!line) throw new Error(`No ${role} with text ${text} in:\n${driver.view}`)
  return line.ref
}

async function textOf(driver: Driver, selector: string): Promise<string> {
  const script = `return document.querySelector(${JSON.stringify(selector)})?.textContent ?? ''`
  const result = await driver.act('execute_javascript', { script })
  expect(result.ok, result.text).toBe(true)
  return JSON.parse(result.text.replace(/^Result: /, '')) as string
}

describe('drag', () => {
  test('reorders a list by HTML5 drag and drop and one driven by pointer events', async () => {
    const driver = await open('gestures/sortable.html')
    expect(driver.view).toContain('listitem [draggable]')
    const dropped = await driver.act('drag', {
      ref: refOfText(driver, 'listitem', 'Apples'),
      to: refOfText(driver, 'listitem', 'Cherries'),
    })
    expect(dropped.ok, dropped.text).toBe(true)
    expect(await textOf(driver, '#native-order')).toBe('Native order: Bananas, Cherries, Apples, Dates')
    expect(dropped.text).toMatch(/^Dragged listitem .* onto listitem .*: it is now 3rd of 4\.$/)

    const moved = await driver.act('drag', {
      ref: refOfText(driver, 'listitem', 'Red'),
      to: refOfText(driver, 'listitem', 'Blue'),
    })
    expect(moved.ok, moved.text).toBe(true)
    expect(await textOf(driver, '#pointer-order')).toBe('Pointer order: Green, Blue, Red, Yellow')

    await driver.observe()
    const back = await driver.act('drag', {
      ref: refOfText(driver, 'listitem', 'Red'),
      by: { x: 0, y: -120 },
    })
    expect(back.ok, back.text).toBe(true)
    expect(await textOf(driver, '#pointer-order')).toBe('Pointer order: Red, Green, Blue, Yellow')
    await driver.close()
  })

  test('refuses a drop point off screen, and input giving both or neither of to and by', async () => {
    const driver = await open('gestures/sortable.html')
    const red = refOfText(driver, 'listitem', 'Red')
    const far = await driver.act('drag', { ref: red, by: { x: 0, y: -5000 } })
    expect(far.ok).toBe(false)
    expect(far.text).toMatch(/the drop point .* is off screen/)
    const drag = driver.session.tools().find((tool) => tool.name === 'drag')
    expect(drag?.input.safeParse({ ref: red }).success).toBe(false)
    expect(drag?.input.safeParse({ ref: red, to: red, by: { x: 1, y: 1 } }).success).toBe(false)
    await driver.close()
  })
})

describe('set_value', () => {
  test('moves a range slider and an ARIA slider with real input, and fills a colour', async () => {
    const driver = await open('gestures/sliders.html')
    expect(driver.view).toContain('slider "Volume" [value=20 min=0 max=200]')
    expect(driver.view).toContain('slider "Brightness" [value=3 min=0 max=10]')

    const volume = await driver.act('set_value', { ref: driver.ref('slider', 'Volume'), value: 135 })
    expect(volume).toEqual({ ok: true, text: "Set slider 'Volume' to 135." })
    expect(await textOf(driver, '#volume-shown')).toBe('Volume input: 135')

    const brightness = await driver.act('set_value', { ref: driver.ref('slider', 'Brightness'), value: '7' })
    expect(brightness).toEqual({ ok: true, text: "Set slider 'Brightness' to 7." })
    expect(await textOf(driver, '#brightness-shown')).toBe('Brightness 7')

    const outside = await driver.act('set_value', { ref: driver.ref('slider', 'Volume'), value: 500 })
    expect(outside).toEqual({ ok: false, text: "slider 'Volume' goes from 0 to 200; 500 is outside." })

    const colour = await driver.act('set_value', { ref: driver.ref('textbox', 'Colour'), value: '#ff8800' })
    expect(colour.ok, colour.text).toBe(true)
    expect(await textOf(driver, '#colour-shown')).toBe('Colour #ff8800')

    await driver.observe()
    expect(driver.view).toContain('slider "Volume" [value=135 min=0 max=200]')
    expect(driver.view).toContain('slider "Brightness" [value=7 min=0 max=10]')
    await driver.close()
  })
})

describe('click with options', () => {
  test('a double-click turns a cell into an editor; a right-click opens the page menu', async () => {
    const driver = await open('gestures/gestures.html')
    const edited = await driver.act('click', { ref: driver.ref('cell', '3.50'), count: 2 })
    expect(edited).toEqual({ ok: true, text: "Double-clicked cell '3.50'." })
    await driver.observe()
    const editor = driver.ref('textbox', 'Edit price')
    expect((await driver.act('type', { ref: editor, text: '4.20', submit: true })).ok).toBe(true)
    await driver.observe()
    expect(driver.names('cell')).toContain('4.20')

    const file = refOfText(driver, 'paragraph', 'report.pdf')
    const opened = await driver.act('click', { ref: file, button: 'right' })
    expect(opened.text).toBe("Right-clicked paragraph 'report.pdf'.")
    await driver.observe()
    const rename = driver.ref('menuitem', 'Rename')
    expect((await driver.act('click', { ref: rename })).ok).toBe(true)
    expect(await textOf(driver, '#status')).toBe('Rename report.pdf')
    await driver.close()
  })

  test('modifiers are held during the click, as the page sees them', async () => {
    const driver = await open('gestures/gestures.html')
    const listen = await driver.act('execute_javascript', {
      script:
        "document.getElementById('highlight').addEventListener('click', (e) => { document.getElementById('status').textContent = 'shift=' + e.shiftKey + ' alt=' + e.altKey })",
    })
    expect(listen.ok, listen.text).toBe(true)
    const clicked = await driver.act('click', {
      ref: driver.ref('button', 'Highlight'),
      modifiers: ['Shift'],
    })
    expect(clicked).toEqual({ ok: true, text: "Shift+clicked button 'Highlight'." })
    expect(await textOf(driver, '#status')).toBe('shift=true alt=false')
    await driver.close()
  })
})

describe('select_text', () => {
  test('selects text across <b> and <i> so that the page highlights exactly it', async () => {
    const driver = await open('gestures/gestures.html')
    const selected = await driver.act('select_text', { text: 'brown fox jumps' })
    expect(selected).toEqual({ ok: true, text: 'Selected "brown fox jumps".' })
    expect((await driver.act('click', { ref: driver.ref('button', 'Highlight') })).ok).toBe(true)
    expect(await textOf(driver, 'mark')).toBe('brown fox jumps')

    const across = await driver.act('select_text', { text: 'over the lazy' })
    expect(across).toEqual({ ok: true, text: 'Selected "over the lazy".' })
    const missing = await driver.act('select_text', { text: 'purple cow' })
    expect(missing).toEqual({
      ok: false,
      text: 'Could not select "purple cow": it is not in the visible text.',
    })
    await driver.close()
  })
})

describe('coordinates', () => {
  test('click_at hits a canvas target only the picture shows, in the screenshot pixels', async () => {
    const driver = await open('gestures/gestures.html')
    const script =
      "const box = document.getElementById('board').getBoundingClientRect(); return [box.x, box.y]"
    const result = await driver.act('execute_javascript', { script })
    const [left, top] = JSON.parse(result.text.replace(/^Result: /, '')) as [number, number]
    // The target is drawn at (300..340, 120..160) of the canvas.
    const missed = await driver.act('click_at', { x: left + 100, y: top + 100 })
    expect(missed.ok, missed.text).toBe(true)
    expect(await textOf(driver, '#status')).toMatch(/^Missed at /)

    // A screenshot half the viewport's width: its points are half the viewport's.
    const shot = await driver.session.pictures?.screenshot({ maxWidth: 640 }, new AbortController().signal)
    const scale = (shot?.width ?? 0) / 1280
    expect(scale).toBeGreaterThan(0.4)
    const hit = await driver.act('click_at', { x: (left + 320) * scale, y: (top + 140) * scale })
    expect(hit.text).toMatch(/^Clicked \([\d.]+, [\d.]+\) on canvas#board\.$/)
    expect(await textOf(driver, '#status')).toBe('Target hit')

    const outside = await driver.act('click_at', { x: 5000, y: 10 })
    expect(outside.ok).toBe(false)
    expect(outside.text).toMatch(/^Could not click: \(5000, 10\) is outside the screenshot/)
    await driver.close()
  })
})

describe('what the page view marks for gestures', () => {
  test('a container that really scrolls is [scrollable] with a ref the scroll action takes; resize handles are [draggable]', async () => {
    const driver = await open('gestures/scroll-areas.html')
    const scrollable = driver.view.split('\n').filter((line) => line.includes('[scrollable]'))
    // The inbox only: not the clipped box, not the roomy one, not the document.
    expect(scrollable, driver.view).toHaveLength(1)
    const ref = /\[ref=([\w-]+)\]/.exec(scrollable[0] ?? '')?.[1]
    expect(ref, scrollable[0]).toBeDefined()
    const scrolled = await driver.act('scroll', { direction: 'down', ref })
    expect(scrolled.ok, scrolled.text).toBe(true)
    const top = await driver.act('execute_javascript', {
      script: "return document.getElementById('inbox').scrollTop",
    })
    expect(Number(top.text.replace(/^Result: /, ''))).toBeGreaterThan(0)
    const draggable = driver.view.split('\n').filter((line) => line.includes('[draggable]'))
    // The split's gutter (a col-resize cursor) and the panel (CSS resize); not the text area, which every one is.
    expect(draggable, driver.view).toHaveLength(2)
    expect(
      draggable.some((line) => line.includes('A panel to resize')),
      driver.view,
    ).toBe(true)
    expect(draggable.some((line) => line.includes('Comment'))).toBe(false)
    await driver.close()
  })
})
