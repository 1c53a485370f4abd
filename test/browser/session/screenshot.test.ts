import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { overlayAttribute } from '../../../src/browser/session/pictures/picture-overlay.ts'
import { captureScreenshot } from '../../../src/browser/session/pictures/screenshot.ts'
import { jpegSize } from '../../support/jpeg.ts'
import { jpegRegion, meanDifference } from '../../support/jpeg-pixels.ts'
import { startPageServer } from '../../support/page-server.ts'
import { borrowBrowser } from '../../support/suite/shared-browser.ts'
import { testPool } from '../helpers/harness.ts'

// Secrets never reach a screenshot: the pixels of a secret field are compared with a render of its text.

let browser: Browser
let page: Page
const signal = new AbortController().signal

beforeAll(async () => {
  browser = await borrowBrowser()
  page = await browser.newPage({ viewport: { width: 1000, height: 600 } })
  await page.setContent(`<!doctype html><body style="margin:20px;background:#fff;font:24px sans-serif">
    <p><input id="typed" data-sextant-secret value="hunter2-very-secret" style="width:420px;height:44px;font:28px monospace;color:#000"></p>
    <p><input id="password" type="password" value="correct-horse" style="width:420px;height:44px;font:28px monospace"></p>
    <p><input id="plain" value="not a secret" style="width:420px;height:44px;font:28px monospace"></p>
  </body>`)
})
afterAll(async () => {
  await browser?.close()
})

interface RegionStats {
  mean: number[]
  /** Mean per-channel standard deviation: about 0 for a blank box. */
  spread: number
}

/** Decodes a JPEG and measures the pixels inside an element's box. */
async function region(
  data: Uint8Array,
  selector: string,
  scale = 1,
  of: Page = page,
): Promise<RegionStats & { pixels: number[] }> {
  const box = await of.locator(selector).boundingBox()
  if (!box) throw new Error(`${selector} has no box`)
  // Inside the border, where the text is drawn.
  const inset = 4
  const rgb = await jpegRegion(page, data, {
    x: Math.round((box.x + inset) * scale),
    y: Math.round((box.y + inset) * scale),
    width: Math.round((box.width - 2 * inset) * scale),
    height: Math.round((box.height - 2 * inset) * scale),
  })
  const count = rgb.length / 3
  const sums = [0, 0, 0]
  const squares = [0, 0, 0]
  const pixels: number[] = []
  for (let i = 0; i < rgb.length; i += 3) {
    for (let c = 0; c < 3; c++) {
      sums[c]! += rgb[i + c]!
      squares[c]! += rgb[i + c]! ** 2
    }
    pixels.push(rgb[i]!)
  }
  const mean = sums.map((sum) => sum / count)
  const spread =
    mean.reduce((total, m, c) => total + Math.sqrt(Math.max(0, squares[c]! / count - m * m)), 0) / 3
  return { mean, spread, pixels }
}

/** The field has ink as the page renders it (taken first), and is one flat colour in the step picture. */
async function expectBlankInPicture(of: Page, selector: string): Promise<void> {
  const rendered = await of.screenshot({ type: 'jpeg', quality: 90 })
  const shot = await captureScreenshot(of, { quality: 90 }, signal)
  const plain = await region(rendered, selector, 1, of)
  const masked = await region(shot.data, selector, 1, of)
  expect(plain.spread).toBeGreaterThan(15)
  expect(masked.spread).toBeLessThan(4)
}

test('fields marked data-sextant-secret and password fields are blank in the screenshot, and the page is left as it was', async () => {
  const shot = await captureScreenshot(page, { quality: 90 }, signal)
  expect(jpegSize(shot.data)).toEqual({ width: 1000, height: 600 })
  const rendered = await page.screenshot({ type: 'jpeg', quality: 90 })

  for (const selector of ['#typed', '#password']) {
    const masked = await region(shot.data, selector)
    const plain = await region(rendered, selector)
    // The render of the secret's text has ink in it; the screenshot's box is one flat colour.
    expect(plain.spread).toBeGreaterThan(15)
    expect(masked.spread).toBeLessThan(4)
    expect(meanDifference(masked.pixels, plain.pixels)).toBeGreaterThan(40)
  }
  // A field with no secret is photographed as it is.
  const plainField = await region(shot.data, '#plain')
  const plainRendered = await region(rendered, '#plain')
  expect(meanDifference(plainField.pixels, plainRendered.pixels)).toBeLessThan(8)

  expect(await page.locator(`[${overlayAttribute}]`).count()).toBe(0)
})

test('a password field in a shadow root is blank, on a page with no other field to mask', async () => {
  const shadowPage = await browser.newPage({ viewport: { width: 1000, height: 600 } })
  await shadowPage.setContent(`<!doctype html><body style="margin:20px;background:#fff">
    <p id="host"></p>
    <script>
      document.getElementById('host').attachShadow({ mode: 'open' }).innerHTML =
        '<input id="shadowed" type="password" value="in-a-shadow-root" style="width:420px;height:44px;font:28px monospace">'
    </script>
  </body>`)
  await expectBlankInPicture(shadowPage, '#shadowed')
  await shadowPage.close()
})

test('a page that redefines querySelectorAll cannot hide its password field from the picture', async () => {
  const hostile = await browser.newPage({ viewport: { width: 1000, height: 600 } })
  await hostile.setContent(`<!doctype html><body style="margin:20px;background:#fff">
    <p><input id="hidden-from-page" type="password" value="correct-horse" style="width:420px;height:44px;font:28px monospace"></p>
    <script>
      const none = document.createDocumentFragment().querySelectorAll('*')
      const nothing = function () { return none }
      Document.prototype.querySelectorAll = nothing
      Element.prototype.querySelectorAll = nothing
      DocumentFragment.prototype.querySelectorAll = nothing
    </script>
  </body>`)
  expect(await hostile.evaluate(() => document.querySelectorAll('input').length)).toBe(0)
  await expectBlankInPicture(hostile, '#hidden-from-page')
  await hostile.close()
})

test('a page with many frames that failed to load is pictured, and a password field in a working frame is blank', async () => {
  const framed = await browser.newPage({ viewport: { width: 1000, height: 600 } })
  await framed.route('http://blocked.test/**', (route) => route.abort())
  await framed.route('http://framed.test/', (route) =>
    route.fulfill({
      contentType: 'text/html',
      body: `<!doctype html><body style="margin:20px;background:#fff">
        ${'<iframe src="http://blocked.test/ad" style="width:40px;height:40px"></iframe>'.repeat(6)}
        <iframe id="login" srcdoc='<body style="margin:0;background:#fff"><input id="inner" type="password" value="correct-horse" style="width:300px;height:44px;font:28px monospace">' style="width:340px;height:80px;border:0"></iframe>
      </body>`,
    }),
  )
  await framed.goto('http://framed.test/')
  await framed.frameLocator('#login').locator('#inner').waitFor()
  expect(framed.frames().filter((frame) => frame.url().startsWith('chrome-error://')).length).toBe(6)
  const shot = await captureScreenshot(framed, { quality: 90 }, signal)
  const rendered = await framed.screenshot({ type: 'jpeg', quality: 90 })
  const frameBox = await framed.locator('#login').boundingBox()
  const inner = await framed.frameLocator('#login').locator('#inner').boundingBox()
  if (!frameBox || !inner) throw new Error('the login frame has no box')
  const box = { x: inner.x + 4, y: inner.y + 4, width: inner.width - 8, height: inner.height - 8 }
  const masked = await jpegRegion(page, shot.data, box)
  const plain = await jpegRegion(page, rendered, box)
  expect(meanDifference(masked, plain)).toBeGreaterThan(20)
  await framed.close()
})

test('a wide viewport is scaled down to the maximum width', async () => {
  const shot = await captureScreenshot(page, { maxWidth: 500 }, signal)
  expect(jpegSize(shot.data)).toEqual({ width: 500, height: 300 })
  expect(shot).toMatchObject({ width: 500, height: 300, mediaType: 'image/jpeg' })
  const masked = await region(shot.data, '#typed', 0.5)
  expect(masked.spread).toBeLessThan(6)
})

/** Pixels of the labels' magenta (#e600e6) in a JPEG, decoded in the page. */
function magentaPixels(data: Uint8Array): Promise<number> {
  return page.evaluate(async (base64) => {
    const image = new Image()
    image.src = `data:image/jpeg;base64,${base64}`
    await image.decode()
    const canvas = document.createElement('canvas')
    canvas.width = image.width
    canvas.height = image.height
    const context = canvas.getContext('2d')
    if (!context) throw new Error('no 2d context')
    context.drawImage(image, 0, 0)
    const pixels = context.getImageData(0, 0, image.width, image.height).data
    let count = 0
    for (let i = 0; i < pixels.length; i += 4) {
      if (pixels[i]! > 180 && pixels[i + 1]! < 80 && pixels[i + 2]! > 180) count++
    }
    return count
  }, Buffer.from(data).toString('base64'))
}

test('ref labels mark the on-screen elements of the page view on the picture, and leave the page clean', async () => {
  const site = await startPageServer({
    pages: {
      '/': '<!doctype html><title>Labels</title><h1>Labels</h1><button>Save</button> <a href="/x">Details</a>',
    },
  })
  const pool = testPool()
  try {
    const session = await pool.newSession({ runId: 'labels', startUrl: `${site.url}/` }, signal)
    const shoot = async (labels: boolean) => {
      if (!session.pictures) throw new Error('The Playwright session takes screenshots.')
      return (await session.pictures.screenshot({ labels }, signal)).data
    }
    const observation = await session.observe(signal)
    expect(observation.pageView).toMatch(/button "Save".*\[ref=/)
    expect(await magentaPixels(await shoot(false))).toBe(0)
    expect(await magentaPixels(await shoot(true))).toBeGreaterThan(200)
    // The overlay is gone: a picture taken after is as plain as the one before.
    expect(await magentaPixels(await shoot(false))).toBe(0)
    await session.close()
  } finally {
    await pool.close()
    await site.close()
  }
})

test('a password field below the fold gets no cover on the page; scrolled into view, it is blank', async () => {
  await onPage(async (long) => {
    await long.setContent(`<!doctype html><body style="margin:20px;background:#fff">
      <div style="height:3000px">Top of a long page</div>
      <input id="pw" type="password" value="correct-horse" style="width:420px;height:44px;font:28px monospace">
      <script>
        window.added = 0
        new MutationObserver((changes) => {
          for (const change of changes) window.added += change.addedNodes.length
        }).observe(document.documentElement, { childList: true, subtree: true })
      </script></body>`)
    await captureScreenshot(long, {}, signal)
    expect(await long.evaluate(() => (window as unknown as { added: number }).added)).toBe(0)
    await long.locator('#pw').scrollIntoViewIfNeeded()
    await expectBlankInPicture(long, '#pw')
    expect(await long.evaluate(() => (window as unknown as { added: number }).added)).toBeGreaterThan(0)
  })
})

test('a page that takes the covers down gets no picture: the capture fails and says why', async () => {
  await onPage(async (hostile) => {
    await hostile.setContent(`<!doctype html><input type="password" value="correct-horse">
      <script>
        new MutationObserver((changes) => {
          for (const change of changes)
            for (const node of change.addedNodes) if (node.nodeType === 1) node.remove()
        }).observe(document.documentElement, { childList: true })
      </script>`)
    await expect(captureScreenshot(hostile, {}, signal)).rejects.toThrow(/removed or moved the covers/)
  })
})

test('a page that takes the covers down and fakes the DOM the check reads still gets no picture, and keeps no overlay', async () => {
  await onPage(async (hostile) => {
    // The covers go as soon as they are put up, and every API a check in the page's own world would read
    // answers as if they still stood.
    await hostile.setContent(`<!doctype html><input id="pw" type="password" value="correct-horse">
      <script>
        let drawn = []
        new MutationObserver((changes) => {
          for (const change of changes)
            for (const node of change.addedNodes)
              if (node.nodeType === 1) {
                drawn = [...node.children].map((cover) => cover.getBoundingClientRect())
                node.remove()
              }
        }).observe(document.documentElement, { childList: true })
        const fakeLayer = () => ({
          isConnected: true,
          remove() {},
          get children() {
            return drawn.map((box) => ({ getBoundingClientRect: () => box }))
          },
        })
        Document.prototype.querySelector = function () { return fakeLayer() }
        Document.prototype.querySelectorAll = function () { return [] }
        window.getComputedStyle = () => ({ visibility: 'visible', opacity: '1' })
      </script>`)
    await expect(captureScreenshot(hostile, {}, signal)).rejects.toThrow(/removed or moved the covers/)
    expect(await hostile.locator(`[${overlayAttribute}]`).count()).toBe(0)
  })
})

test('a page that redefines remove() cannot keep the covers on its page', async () => {
  await onPage(async (hostile) => {
    await hostile.setContent(`<!doctype html><input type="password" value="correct-horse">
      <script>
        Element.prototype.remove = function () {}
        Document.prototype.querySelectorAll = function () { return [] }
      </script>`)
    await captureScreenshot(hostile, {}, signal)
    expect(await hostile.locator(`[${overlayAttribute}]`).count()).toBe(0)
  })
})

/** A small page of its own for a hostile test, closed whatever the test found. */
async function onPage(check: (page: Page) => Promise<void>): Promise<void> {
  const page = await browser.newPage({ viewport: { width: 600, height: 300 } })
  try {
    await check(page)
  } finally {
    await page.close()
  }
}
