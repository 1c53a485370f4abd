import { afterAll, expect, test } from 'vitest'
import { killChromiumChildren } from '../kill-chromium.ts'
import { borrowBrowser, sharedBrowserState } from './shared-browser.ts'

// Playwright objects are compared by identity here: a failed deep comparison of one prints its whole object graph.
const borrowed: Array<{ close(): Promise<void> }> = []
afterAll(async () => {
  for (const browser of borrowed) await browser.close()
})

async function borrow() {
  const browser = await borrowBrowser()
  borrowed.push(browser)
  return browser
}

test("a borrower's close() closes its own contexts and leaves the browser, and another borrower's, open", async () => {
  const first = await borrow()
  const second = await borrow()
  const pid = sharedBrowserState().pid
  const kept = await second.newContext()
  const page = await first.newPage()
  await first.newContext()
  expect(first.contexts()).toHaveLength(2)
  expect(second.contexts().length === 1 && second.contexts()[0] === kept).toBe(true)

  await first.close()
  expect(page.isClosed()).toBe(true)
  expect(first.contexts().length).toBe(0)
  expect(first.isConnected()).toBe(true)
  expect(sharedBrowserState().pid).toBe(pid)
  expect(sharedBrowserState().contexts.length === 1 && sharedBrowserState().contexts[0] === kept).toBe(true)
  const still = await kept.newPage()
  await still.setContent('<p>still here</p>')
  expect(await still.textContent('p')).toBe('still here')
  await second.close()
  expect(sharedBrowserState().contexts.length).toBe(0)
})

test('a page opened on the borrowed browser takes its context with it when it closes', async () => {
  const browser = await borrow()
  const page = await browser.newPage()
  expect(browser.contexts()).toHaveLength(1)
  await page.close()
  await expect.poll(() => browser.contexts().length).toBe(0)
})

test('the listeners a borrower adds go with its close()', async () => {
  const browser = await borrow()
  // Playwright's client objects are event emitters at run time; its types do not say so.
  const listeners = () =>
    (browser as unknown as { listenerCount(event: string): number }).listenerCount('disconnected')
  const before = listeners()
  browser.on('disconnected', () => {})
  browser.once('disconnected', () => {})
  expect(listeners()).toBe(before + 2)
  await browser.close()
  expect(listeners()).toBe(before)
})

test("a shared browser that dies (a crash test kills the worker's Chromiums) is replaced on the next borrow", async () => {
  const browser = await borrow()
  const pid = sharedBrowserState().pid
  expect(pid).toBeGreaterThan(0)
  const gone = new Promise((resolve) => browser.once('disconnected', resolve))
  expect(killChromiumChildren()).toContain(pid)
  await gone
  const next = await borrow()
  expect(next.isConnected()).toBe(true)
  expect(sharedBrowserState().pid).not.toBe(pid)
  const page = await next.newPage()
  await page.setContent('<p>new</p>')
  expect(await page.textContent('p')).toBe('new')
})
