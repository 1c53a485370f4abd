import type { Browser, CDPSession, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { ListenerLookup, maxListeners } from '../../../src/browser/view/listeners/listener-lookup.ts'
import { buildPageView } from '../../../src/browser/view/page-view.ts'
import { RefRegistry } from '../../../src/browser/view/stable-refs.ts'
import { type PageServer, startPageServer } from '../../support/page-server.ts'
import { borrowBrowser } from '../../support/suite/shared-browser.ts'

// What the listener lookup asks the browser is bounded by what it can cost the server
// (listener-lookup.ts): a page's listeners beyond the bound are not asked for, and an iframe in a
// process of its own is asked only when a view scans it, yet still shows what listens in it.

let browser: Browser
let server: PageServer

const list = `<ul><li>Apple</li><li>Pear</li></ul>
  <script>document.querySelector('li').addEventListener('dblclick', () => {})</script>`

beforeAll(async () => {
  browser = await borrowBrowser()
  server = await startPageServer({
    pages: {
      // Another site than the page's (served by the test's route below): Chromium gives it a process of its own.
      '/outer': `<!doctype html><title>Outer</title><h1>Outer</h1>
        <iframe src="http://frame.example/list" width="400" height="200"></iframe>
        ${Array.from({ length: 12 }, () => '<iframe src="http://frame.example/list" width="10" height="10" style="position:absolute;top:5000px"></iframe>').join('')}`,
    },
  })
})
afterAll(async () => {
  await browser?.close()
  await server?.close()
})

/** Every CDP method sent while `work` runs, by any session (the prototype is Playwright's CDPSession's). */
async function methodsSent(page: Page, work: () => Promise<unknown>): Promise<string[]> {
  const sent: string[] = []
  const probe = await page.context().newCDPSession(page)
  const prototype = Object.getPrototypeOf(probe) as CDPSession
  const send = prototype.send
  prototype.send = function (this: CDPSession, ...args: Parameters<CDPSession['send']>) {
    sent.push(args[0])
    return send.apply(this, args)
  } as CDPSession['send']
  try {
    await work()
  } finally {
    prototype.send = send
    await probe.detach()
  }
  return sent
}

const lineOf = (view: string, text: string) =>
  view.split('\n').find((line) => line.includes(text)) ?? `(no line for ${text})`

describe('the listener lookup', () => {
  test('a page holding more listeners than the bound is not asked where they are', async () => {
    const page = await browser.newPage()
    await page.setContent(`${list}<div id="crowd" hidden></div>
      <script>
        const crowd = document.getElementById('crowd')
        for (let i = 0; i < ${Math.ceil(maxListeners / 5) + 1}; i++) {
          const element = document.createElement('div')
          for (const type of ['click', 'mousedown', 'mouseup', 'dblclick', 'contextmenu']) element.addEventListener(type, () => {})
          crowd.appendChild(element)
        }
      </script>`)
    const lookup = new ListenerLookup()
    let prepared: Awaited<ReturnType<ListenerLookup['prepare']>>
    const sent = await methodsSent(page, async () => {
      prepared = await lookup.prepare(page)
    })
    expect(sent).not.toContain('DOMDebugger.getEventListeners')
    expect(sent).not.toContain('DOM.resolveNode')
    // The view goes on: the listening item has no kind from the browser, the page is still read.
    const view = (await buildPageView(page, new RefRegistry(), { tabs: [] }, new AbortController().signal))
      .text
    expect(lineOf(view, 'Apple')).not.toMatch(/\[dblclick\]/)
    expect(view).toContain('Pear')
    expect(prepared).toBeDefined()
    await page.close()
  }, 60_000)

  test('a page under the bound is asked, and its listening item shows', async () => {
    const page = await browser.newPage()
    await page.setContent(list)
    const view = (await buildPageView(page, new RefRegistry(), { tabs: [] }, new AbortController().signal))
      .text
    expect(lineOf(view, 'Apple')).toMatch(/\[dblclick\].*\[ref=/)
    await page.close()
  })

  test('an iframe in a process of its own shows its listeners; the frames a view does not scan are not asked', async () => {
    const page = await browser.newPage()
    await page
      .context()
      .route('http://frame.example/**', (route) =>
        route.fulfill({ contentType: 'text/html', body: `<!doctype html><title>List</title>${list}` }),
      )
    await page.goto(`${server.url}/outer`)
    const inner = page.frames().filter((frame) => frame !== page.mainFrame())
    expect(inner).toHaveLength(13)
    await Promise.all(inner.map((frame) => frame.waitForLoadState()))
    // The test is about out-of-process frames: each must have a CDP session of its own.
    for (const frame of inner) await (await page.context().newCDPSession(frame)).detach()
    const registry = new RefRegistry()
    const signal = new AbortController().signal
    let view = ''
    const sent = await methodsSent(page, async () => {
      view = (await buildPageView(page, registry, { tabs: [] }, signal)).text
    })
    expect(lineOf(view, 'Apple')).toMatch(/\[dblclick\].*\[ref=/)
    // The page's own target and the one frame in sight: not the twelve off screen.
    expect(sent.filter((method) => method === 'Memory.getDOMCounters')).toHaveLength(2)
    await page.close()
  })
})
