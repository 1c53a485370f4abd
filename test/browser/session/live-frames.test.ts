import { expect, test } from 'vitest'
import type { LiveFrame, ScreencastOptions } from '../../../src/browser/browser-session.ts'
import { RunSecrets } from '../../../src/secrets/secrets.ts'
import { jpegRegion, meanDifference, type PixelBox } from '../../support/jpeg-pixels.ts'
import { until } from '../../support/until.ts'
import { Driver } from '../helpers/harness.ts'
import { usePictureHarness } from '../helpers/picture-harness.ts'

// Live frames of a run's browser (BrowserSession.screencast): they come while the page changes, follow the
// active tab, stop with their signal, and never show a secret while masked. Judged on decoded pixels.

const viewport = { width: 800, height: 400 }
const field: PixelBox = { x: 20, y: 20, width: 420, height: 44 }
const pin: PixelBox = { x: 20, y: 100, width: 420, height: 44 }
const inside = (box: PixelBox): PixelBox => ({
  x: box.x + 4,
  y: box.y + 4,
  width: box.width - 8,
  height: box.height - 8,
})
const inputStyle = (box: PixelBox) =>
  `position:absolute;left:${box.x}px;top:${box.y}px;width:${box.width}px;height:${box.height}px;box-sizing:border-box;font:28px monospace;color:#000;background:#fff;border:1px solid #000;padding:0 6px`
/** Keeps the page changing, so the screencast keeps sending frames. */
const ticker = `<div id="tick" style="position:absolute;left:600px;top:300px;font:20px monospace">0</div>
<script>let n = 0; setInterval(() => { document.getElementById('tick').textContent = String(++n) }, 40)</script>`

const formPage = `<!doctype html><meta charset="utf-8"><title>Account</title>
<body style="margin:0;background:#fff">
<input id="account" aria-label="Account number" style="${inputStyle(field)}">
<input id="pin" type="password" aria-label="PIN" style="${inputStyle(pin)}">
${ticker}
</body>`
const redPage = `<!doctype html><meta charset="utf-8"><title>Red</title>
<body style="margin:0;background:rgb(220,0,0)">${ticker}</body>`

const harness = usePictureHarness({ '/form': formPage, '/red': redPage })

/** Live frames of a session, kept in arrival order, until `stop()`. */
function watch(driver: Driver, options: ScreencastOptions) {
  const frames: LiveFrame[] = []
  const controller = new AbortController()
  const cast = driver.session.live?.screencast
  if (!cast) throw new Error('the session has no screencast')
  const ended = cast((frame) => frames.push(frame), options, controller.signal)
  return {
    frames,
    /** Waits for `count` frames that arrive from now on, and answers the last. */
    async next(count = 1): Promise<LiveFrame> {
      const from = frames.length
      return until(() => (frames.length >= from + count ? frames.at(-1) : undefined), {
        what: `${count} more live frames`,
      })
    },
    async stop(): Promise<void> {
      controller.abort()
      await ended
    },
  }
}

const bytes = (frame: LiveFrame) => new Uint8Array(Buffer.from(frame.jpeg, 'base64'))
const grey = (box: PixelBox) =>
  Array.from({ length: box.width * box.height }, () => [0x9a, 0xa0, 0xa6]).flat()
const white = (box: PixelBox) => Array.from({ length: box.width * box.height * 3 }, () => 255)
const region = (frame: LiveFrame, box: PixelBox) => jpegRegion(harness.decoderPage, bytes(frame), box)

test('frames come while the page changes, sized as the viewport, and stop with their signal', async () => {
  const driver = await Driver.open(harness.pool, { startUrl: `${harness.server.url}/form`, viewport })
  try {
    await driver.observe()
    const live = watch(driver, { masked: () => true })
    const frame = await live.next(5)
    expect({ width: frame.width, height: frame.height }).toEqual(viewport)
    await live.stop()
    const count = live.frames.length
    // The page goes on changing (the ticker); an observation round-trip lets frames arrive if any were sent.
    await driver.observe()
    await driver.observe()
    expect(live.frames.length).toBe(count)
  } finally {
    await driver.close()
  }
}, 60_000)

test('the frames follow the active tab', async () => {
  const driver = await Driver.open(harness.pool, { startUrl: `${harness.server.url}/form`, viewport })
  try {
    await driver.observe()
    const live = watch(driver, { masked: () => false })
    const corner: PixelBox = { x: 10, y: 200, width: 20, height: 20 }
    expect(meanDifference(await region(await live.next(), corner), white(corner))).toBeLessThan(8)
    const opened = await driver.act('open_tab', { url: `${harness.server.url}/red` })
    expect(opened.ok, opened.text).toBe(true)
    const red = Array.from({ length: corner.width * corner.height }, () => [220, 0, 0]).flat()
    await until(async () => meanDifference(await region(await live.next(), corner), red) < 12, {
      what: 'a frame of the red tab',
    })
    await live.stop()
  } finally {
    await driver.close()
  }
}, 60_000)

test('a secret field and a password field are painted over while masked, and shown while not', async () => {
  const driver = await Driver.open(harness.pool, { startUrl: `${harness.server.url}/form`, viewport })
  try {
    await driver.observe()
    const secrets = RunSecrets.from({ account: '4711-0815-AAAA' })
    const typed = await driver.actWith(secrets, 'type', {
      ref: driver.ref('textbox', 'Account number'),
      text: '<secret>account</secret>',
    })
    expect(typed.ok, typed.text).toBe(true)
    const pinTyped = await driver.act('type', { ref: driver.ref('textbox', 'PIN'), text: '9932' })
    expect(pinTyped.ok, pinTyped.text).toBe(true)

    let masked = true
    const live = watch(driver, { masked: () => masked })
    const covered = await live.next(3)
    for (const box of [field, pin]) {
      expect(meanDifference(await region(covered, inside(box)), grey(inside(box)))).toBeLessThan(6)
    }
    // A person who took over types the secret themselves: their frames show the fields.
    masked = false
    const shown = await live.next(3)
    for (const box of [field, pin]) {
      expect(meanDifference(await region(shown, inside(box)), grey(inside(box)))).toBeGreaterThan(30)
    }
    await live.stop()
  } finally {
    await driver.close()
  }
}, 60_000)

test('a frame whose secrets cannot be told is dropped, never sent unmasked', async () => {
  const driver = await Driver.open(harness.pool, { startUrl: `${harness.server.url}/form`, viewport })
  try {
    await driver.observe()
    const secrets = RunSecrets.from({ account: '4711-0815-AAAA' })
    const typed = await driver.actWith(secrets, 'type', {
      ref: driver.ref('textbox', 'Account number'),
      text: '<secret>account</secret>',
    })
    expect(typed.ok, typed.text).toBe(true)
    // More texts than the secret search reads (secret-masks.ts): where the secret shows cannot be told.
    const flooded = await driver.act('execute_javascript', {
      script: `const box = document.createElement('div'); box.style.cssText = 'position:absolute;top:0;left:0;height:0;overflow:hidden';
        for (let i = 0; i < 25000; i++) { const span = document.createElement('span'); span.textContent = 'w' + i; box.append(span) }
        document.body.append(box); true`,
    })
    expect(flooded.ok, flooded.text).toBe(true)
    const masked = watch(driver, { masked: () => true })
    const shown = watch(driver, { masked: () => false })
    // The page goes on changing: the unmasked cast sees it, the masked one sends nothing.
    await shown.next(5)
    expect(masked.frames).toEqual([])
    await Promise.all([masked.stop(), shown.stop()])
  } finally {
    await driver.close()
  }
}, 60_000)
