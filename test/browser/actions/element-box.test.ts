import { afterAll, beforeAll, expect, test } from 'vitest'
import type { BrowserPool } from '../../../src/browser/launch/launcher.ts'
import { type PageServer, startPageServer } from '../../support/page-server.ts'
import { Driver, testPool } from '../helpers/harness.ts'

// The box a step's picture outlines for the element an action names: where the picture shows it, in the
// main frame and inside an iframe, as fractions of the 1280×800 viewport.

let server: PageServer
let pool: BrowserPool

const framed = `<!doctype html><body style="margin:0"><button style="position:absolute;left:10px;top:20px;width:80px;height:40px;margin:0">Inner</button>`
const page = `<!doctype html><title>Boxes</title><body style="margin:0;height:3000px">
<button style="position:fixed;left:128px;top:400px;width:256px;height:80px;margin:0">Fixed</button>
<button style="position:absolute;left:640px;top:1200px;width:64px;height:40px;margin:0">Far down</button>
<iframe src="/framed" style="position:absolute;left:512px;top:80px;width:300px;height:200px;border:0"></iframe>`

/** Boxes are given to four decimals. */
const near = (box: Record<string, number>) =>
  Object.fromEntries(Object.entries(box).map(([key, value]) => [key, expect.closeTo(value, 4)]))

beforeAll(async () => {
  server = await startPageServer({ pages: { '/boxes': page, '/framed': framed } })
  pool = testPool()
})
afterAll(async () => {
  await pool?.close()
  await server?.close()
})

test('the outlined box is where the view saw the element: main frame, inside an iframe, and after a scroll', async () => {
  const driver = await Driver.open(pool, { startUrl: `${server.url}/boxes` })
  try {
    await driver.observe()
    const signal = new AbortController().signal
    const box = (name: string) => driver.session.pictures?.elementBox(driver.ref('button', name), signal)
    expect(await box('Fixed')).toEqual({ x: 0.1, y: 0.5, width: 0.2, height: 0.1 })
    expect(await box('Inner')).toEqual(
      near({ x: 522 / 1280, y: 100 / 800, width: 80 / 1280, height: 40 / 800 }),
    )
    expect((await driver.act('scroll', { direction: 'down', pages: 1.5 })).ok).toBe(true)
    await driver.observe()
    expect(await box('Far down')).toEqual(expect.objectContaining({ x: 0.5, width: 0.05, height: 0.05 }))
    const farDown = driver.ref('button', 'Far down')
    const scrolledTo = (await box('Far down'))?.y ?? Number.NaN
    // Wherever the scroll stopped, the box sits where the page now draws it, and the fixed button has not moved.
    expect(scrolledTo).toBeGreaterThanOrEqual(0)
    expect(scrolledTo).toBeLessThan(1)
    expect(await box('Fixed')).toEqual({ x: 0.1, y: 0.5, width: 0.2, height: 0.1 })

    // Back at the top, a ref of the earlier view names an element off the picture: nothing to outline.
    expect((await driver.act('scroll', { direction: 'up', pages: 3 })).ok).toBe(true)
    await driver.observe()
    expect(await driver.session.pictures?.elementBox(farDown, signal)).toBeUndefined()
  } finally {
    await driver.close()
  }
})
