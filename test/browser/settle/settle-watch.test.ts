import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { BrowserPool } from '../../../src/browser/launch/launcher.ts'
import { waitForDomQuiet } from '../../../src/browser/settle/dom-quiet.ts'
import { NetworkActivity } from '../../../src/browser/settle/network-activity.ts'
import { ActionWatch } from '../../../src/browser/settle/page-watch.ts'
import { SettledPages } from '../../../src/browser/settle/settled-pages.ts'
import { type PageServer, startPageServer } from '../../support/page-server.ts'
import { borrowBrowser } from '../../support/suite/shared-browser.ts'
import { Driver, testPool } from '../helpers/harness.ts'

/**
 * The observation after an action counts the DOM's quiet from the action: an
 * action that changed nothing is observed after a frame, not a fresh quiet
 * window; what the action sets off within the quiet window of its input is
 * still in the view. (Later than that, 40 ms say, is no more certain than it
 * was when the window ran from the observation's start: a handler's pending
 * timer cannot be seen, and an action that changed nothing looks the same.)
 */

let browser: Browser
let pool: BrowserPool
let server: PageServer
const signal = new AbortController().signal

const pages = {
  '/still': `<!doctype html><title>Still</title><button>Nothing</button><a href="/still?again">Again</a>`,
  '/late': `<!doctype html><title>Late</title>
<button onclick="setTimeout(() => { document.getElementById('out').textContent = 'Arrived soon' }, 15)">Soon</button>
<p id="out"></p>`,
  '/opener': `<!doctype html><title>Opener</title><p id="out"></p>
<script>
  addEventListener('message', () => setTimeout(() => { document.getElementById('out').textContent = 'Signed in' }, 20))
</script>`,
  // Writes every 5 ms, and stalls its main thread for 30 ms every 50 ms, as a renderer the machine starves
  // does: what runs first after a stall (a frame, a call of ours) finds the DOM unchanged for longer than the
  // quiet window, while the ticker's overdue timer has not had its turn yet.
  '/stalling': `<!doctype html><title>Stalling</title><p id="tick">Still</p>
<script>
  let ticks = 0
  setInterval(() => { document.getElementById('tick').textContent = 'Tick ' + ++ticks }, 5)
  setInterval(() => { const end = performance.now() + 30; while (performance.now() < end) {} }, 50)
</script>`,
  '/echo': `<!doctype html><title>Echo</title><label>Note <input id="note"></label><p id="echo"></p>
<script>
  let timer
  document.getElementById('note').addEventListener('input', (event) => {
    clearTimeout(timer)
    timer = setTimeout(() => { document.getElementById('echo').textContent = 'Echo: ' + event.target.value }, 20)
  })
</script>`,
}

beforeAll(async () => {
  server = await startPageServer({ pages })
  browser = await borrowBrowser()
  pool = testPool()
})

afterAll(async () => {
  await browser?.close()
  await pool?.close()
  await server?.close()
})

/** A page with its network watched, and the settler a session would use for it. */
async function watchedPage(
  path: string,
): Promise<{ page: Page; settled: SettledPages; close: () => Promise<void> }> {
  const page = await browser.newPage()
  const activity = new NetworkActivity(page)
  await page.goto(`${server.url}${path}`)
  const settled = new SettledPages((of) => (of === page ? activity : undefined))
  await settled.beforeObserving(async () => page, signal)
  return {
    page,
    settled,
    close: async () => {
      activity.detach()
      await page.close()
    },
  }
}

describe('the quiet after an action', () => {
  test('an action that changed nothing is observed through its watch, without a fresh quiet window', async () => {
    const { page, settled, close } = await watchedPage('/still')
    settled.actionStarting(page)
    await page.click('button')
    settled.actionEnded()
    const observed = await settled.beforeObserving(async () => page, signal)
    expect(observed.watched).toBe(true)
    expect(observed.settled).toBe(true)
    // Used once: the next observation, with no action before it, waits afresh.
    expect((await settled.beforeObserving(async () => page, signal)).watched).toBe(false)
    await close()
  })

  test("the quiet window runs from the action's last input, not from its start", async () => {
    const { page, settled, close } = await watchedPage('/echo')
    settled.actionStarting(page)
    // Key by key, for longer than the window: a window counted from the start would be over at the last key.
    const text = 'typed one key at a time, for longer than the quiet window'
    await page.locator('#note').pressSequentially(text)
    settled.actionEnded()
    const observed = await settled.beforeObserving(async () => page, signal)
    expect(observed.watched).toBe(true)
    // Read at once, without a view build's time for the page's timer to catch up.
    expect(await page.textContent('#echo')).toBe(`Echo: ${text}`)
    await close()
  })

  test('a navigation the action started replaces the watched document: the wait starts afresh', async () => {
    const { page, settled, close } = await watchedPage('/still')
    settled.actionStarting(page)
    await page.click('a')
    settled.actionEnded()
    await page.waitForURL(/again/)
    const observed = await settled.beforeObserving(async () => page, signal)
    expect(observed.watched).toBe(false)
    await close()
  })

  test('a change the action sets off 15 ms after its click, inside the quiet window, is in the next view', async () => {
    const driver = await Driver.open(pool, { startUrl: `${server.url}/late` })
    await driver.observe()
    expect((await driver.act('click', { ref: driver.ref('button', 'Soon') })).ok).toBe(true)
    await driver.observe()
    expect(driver.view).toContain('Arrived soon')
    await driver.close()
  })
  test('a change set off 20 ms after the last key of a long typing is in the next view: the window runs from the input', async () => {
    const driver = await Driver.open(pool, { startUrl: `${server.url}/echo` })
    await driver.observe()
    const text = 'typed one key at a time, for longer than the quiet window'
    const typed = await driver.act('type', { ref: driver.ref('textbox', 'Note'), text, clear: false })
    expect(typed.ok).toBe(true)
    await driver.observe()
    expect(driver.view).toContain(`Echo: ${text}`)
    await driver.close()
  })
})

describe('a page whose main thread stalls while it keeps changing', () => {
  // Each wait ends at its cap: before the page's overdue timers ran, about one wait in two ended as quiet.
  const capMs = 300
  const waits = 8

  test('is not quiet to a fresh wait', async () => {
    const { page, close } = await watchedPage('/stalling')
    for (let wait = 1; wait <= waits; wait++) {
      expect((await waitForDomQuiet(page, 25, capMs, signal)).state, `wait ${wait}`).toBe('busy')
    }
    await close()
  })

  test("is not quiet to an action's watch", async () => {
    const { page, close } = await watchedPage('/stalling')
    for (let wait = 1; wait <= waits; wait++) {
      const watch = new ActionWatch(page)
      watch.ended()
      // Never quiet; on a loaded machine the stalled page may not answer within the wait's own deadline
      // (undefined: it cannot tell), which is no claim of quiet either.
      expect((await watch.settle(25, capMs, signal))?.quiet, `wait ${wait}`).not.toBe(true)
      watch.dispose()
    }
    await close()
  })
})

describe('the quiet of a page left in the background', () => {
  /** Two pages of one settler, the first put in the background by the second becoming active. */
  async function twoTabs() {
    const opener = await watchedPage('/opener')
    const other = await browser.newPage()
    await other.goto(`${server.url}/still`)
    const { settled, page } = opener
    settled.activeChanged(page)
    settled.activeChanged(other)
    // The background watch is put up without waiting for it; an observation of the page waits for it.
    await page.evaluate(() => new Promise(requestAnimationFrame))
    return { page, settled, other, close: opener.close }
  }

  test('a page that did nothing meanwhile is observed through its background watch, once', async () => {
    const { page, settled, other, close } = await twoTabs()
    await other.close()
    settled.activeChanged(page)
    const observed = await settled.beforeObserving(async () => page, signal)
    expect(observed.watched).toBe(true)
    expect((await settled.beforeObserving(async () => page, signal)).watched).toBe(false)
    await close()
  })

  test('a message it got in the background starts the quiet window: what its handler sets off 20 ms later is waited for', async () => {
    const { page, settled, other, close } = await twoTabs()
    await other.close()
    settled.activeChanged(page)
    // As a popup reports back to its opener as it closes. The evaluation returns after the handler ran.
    await page.evaluate(() => {
      postMessage('done', '*')
      return new Promise((resolve) => setTimeout(resolve, 0))
    })
    const observed = await settled.beforeObserving(async () => page, signal)
    expect(observed.watched).toBe(true)
    expect(await page.evaluate(() => document.getElementById('out')?.textContent)).toBe('Signed in')
    await close()
  })

  test('an action on the page replaces its background watch with its own', async () => {
    const { page, settled, other, close } = await twoTabs()
    settled.activeChanged(page)
    settled.actionStarting(page)
    await page.evaluate(() => document.title)
    settled.actionEnded()
    expect((await settled.beforeObserving(async () => page, signal)).watched).toBe(true)
    // Neither watch is left to answer a second time.
    expect((await settled.beforeObserving(async () => page, signal)).watched).toBe(false)
    await other.close()
    await close()
  })
})
