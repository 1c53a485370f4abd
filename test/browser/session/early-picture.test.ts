import { expect, test } from 'vitest'
import type { Screenshot, ScreenshotOptions } from '../../../src/browser/session/pictures/screenshot.ts'
import { jpegRegion } from '../../support/jpeg-pixels.ts'
import { Driver } from '../helpers/harness.ts'
import { usePictureHarness } from '../helpers/picture-harness.ts'

// A run's step picture is started with each observation, beside the view's build (early-picture.ts):
// whatever it saves, the picture a run is handed shows the page as it is when asked, and blanks what it must.

const signal = new AbortController().signal

const paintPage = `<!doctype html><title>Paint</title>
<body style="margin:0;background:#ffffff">
<button style="position:absolute;left:600px;top:20px" onclick="document.body.style.background = '#ff0000'">Paint</button>
</body>`

// After the click the page never goes quiet (a ticker writes every 5 ms), so its settle ends at the busy
// cap, long after the paint: whatever the machine's load, the page as settled is painted, and the first
// frame after the click (when the picture starts) is not.
const ticker = `const tick = document.getElementById('tick')
  let ticks = 0
  setInterval(() => { tick.textContent = 'Tick ' + ++ticks }, 5)
  setTimeout(() => { document.getElementById('status').textContent = 'Painted'; document.body.style.background = '#ff0000' }, 200)`
const laterPaintPage = `<!doctype html><title>Paint later</title>
<body style="margin:0;background:#ffffff">
<button style="position:absolute;left:600px;top:20px" onclick="${ticker}">Paint later</button>
<p id="status" style="position:absolute;left:600px;top:80px">Plain</p>
<p id="tick" style="position:absolute;left:600px;top:120px">Still</p>
</body>`

// A tab whose page never goes quiet once it opens, and paints a while after: no action's watch times it.
const openerPage = `<!doctype html><title>Opener</title>
<body style="margin:0;background:#ffffff"><a href="/busy-popup" target="_blank">Open busy tab</a></body>`
const busyPopupPage = `<!doctype html><title>Busy tab</title>
<body style="margin:0;background:#ffffff">
<p id="status" style="position:absolute;left:600px;top:80px">Loading</p>
<p id="tick" style="position:absolute;left:600px;top:120px">Still</p>
<script>${ticker}</script>
</body>`

const passwordPage = `<!doctype html><title>Sign in</title>
<body style="margin:20px;background:#fff">
<input id="password" type="password" aria-label="Password" value="correct-horse-battery" style="width:420px;height:44px;font:28px monospace">
<button>Sign in</button>
<button onclick="
  const status = document.getElementById('status')
  let ticks = 0
  const timer = setInterval(() => { status.textContent = 'Tick ' + ++ticks; if (ticks === 50) clearInterval(timer) }, 10)
">Tick</button>
<p id="status">Still</p>
</body>`

const harness = usePictureHarness({
  '/paint': paintPage,
  '/paint-later': laterPaintPage,
  '/password': passwordPage,
  '/opener': openerPage,
  '/busy-popup': busyPopupPage,
})

/** Runs `work` with a session on one of the pages, 800×400, and closes it. */
async function onPage(path: string, work: (driver: Driver) => Promise<void>): Promise<void> {
  const driver = await Driver.open(harness.pool, {
    startUrl: `${harness.server.url}${path}`,
    viewport: { width: 800, height: 400 },
  })
  try {
    await work(driver)
  } finally {
    await driver.close()
  }
}

async function click(driver: Driver, name: string): Promise<void> {
  const result = await driver.act('click', { ref: driver.ref('button', name) })
  expect(result.ok, result.text).toBe(true)
}

const options = { quality: 90 }
/** Page background, away from the buttons and texts. */
const background = { x: 20, y: 200, width: 200, height: 100 }

async function expectRed(shot: Screenshot): Promise<void> {
  const [red, green, blue] = await meanColour(shot.data, background)
  expect(red).toBeGreaterThan(240)
  expect(green).toBeLessThan(20)
  expect(blue).toBeLessThan(20)
}

function screenshotOf(driver: Driver): (options: ScreenshotOptions) => Promise<Screenshot> {
  const screenshot = driver.session.pictures?.screenshot
  if (!screenshot) throw new Error('the session takes no screenshots')
  return (options) => screenshot(options, signal)
}

/** Mean red, green and blue of a box of the picture. */
async function meanColour(data: Uint8Array, box: { x: number; y: number; width: number; height: number }) {
  const rgb = await jpegRegion(harness.decoderPage, data, box)
  const sums = [0, 0, 0]
  for (let i = 0; i < rgb.length; i++) sums[i % 3]! += rgb[i]!
  return sums.map((sum) => Math.round(sum / (rgb.length / 3)))
}

test('a picture asked after an action shows the page as the action left it, not the one started with the observation before it', async () => {
  await onPage('/paint', async (driver) => {
    const screenshot = screenshotOf(driver)
    // The run has asked once: from now on each observation starts its picture.
    await driver.observe()
    expect(await meanColour((await screenshot(options)).data, background)).toEqual([255, 255, 255])
    await driver.observe()
    await click(driver, 'Paint')
    await expectRed(await screenshot(options))
  })
})

test('a page that changes after the first frame of an action, before it settles, is pictured as it settled', async () => {
  await onPage('/paint-later', async (driver) => {
    const screenshot = screenshotOf(driver)
    await driver.observe()
    await screenshot(options)
    await click(driver, 'Paint later')
    expect((await driver.observe()).pageView).toContain('Painted')
    await expectRed(await screenshot(options))
  })
})

test('a new tab that changes after the first frame of its wait is pictured as it settled', async () => {
  await onPage('/opener', async (driver) => {
    const screenshot = screenshotOf(driver)
    await driver.observe()
    await screenshot(options)
    const opened = await driver.act('click', { ref: driver.ref('link', 'Open busy tab') })
    expect(opened.ok, opened.text).toBe(true)
    const observed = await driver.observe()
    expect(observed.title).toBe('Busy tab')
    expect(observed.pageView).toContain('Painted')
    await expectRed(await screenshot(options))
  })
})

test('the picture started with an observation blanks a password field in view, step after step', async () => {
  await onPage('/password', async (driver) => {
    const screenshot = screenshotOf(driver)
    const inside = { x: 28, y: 28, width: 404, height: 28 }
    for (let step = 0; step < 3; step++) {
      await driver.observe()
      const rgb = await jpegRegion(harness.decoderPage, (await screenshot(options)).data, inside)
      // One flat colour: no dot of the password is drawn.
      expect(Math.max(...rgb) - Math.min(...rgb), `step ${step + 1}`).toBeLessThan(24)
    }
    // The same page drawn by Chromium alone has the dots there.
    const plain = await harness.decoder.newPage({ viewport: { width: 800, height: 400 } })
    await plain.setContent(passwordPage)
    const rendered = await jpegRegion(
      harness.decoderPage,
      await plain.screenshot({ type: 'jpeg', quality: 90 }),
      inside,
    )
    await plain.close()
    expect(Math.max(...rendered) - Math.min(...rendered)).toBeGreaterThan(100)
  })
})

test('an observation stopped before its view is built lets the next action run: the picture it started does not wait for that view', async () => {
  await onPage('/password', async (driver) => {
    await driver.observe()
    await screenshotOf(driver)(options)
    await click(driver, 'Tick')
    // The page keeps changing for half a second: the observation is stopped in its settle, after the
    // first frame (when the picture, which must cover the password field, has started).
    await expect(driver.session.observe(AbortSignal.timeout(150))).rejects.toThrow()
    const clicked = await Promise.race([
      click(driver, 'Sign in'),
      new Promise<'stuck'>((resolve) => setTimeout(() => resolve('stuck'), 5000)),
    ])
    expect(clicked).not.toBe('stuck')
  })
})
