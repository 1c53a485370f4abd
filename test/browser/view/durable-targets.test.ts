import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { describeTarget } from '../../../src/browser/view/durable-targets.ts'
import { capturePage } from '../../../src/browser/view/page-capture.ts'
import { buildPageView } from '../../../src/browser/view/page-view.ts'
import { RefRegistry } from '../../../src/browser/view/stable-refs.ts'
import type { ElementTarget } from '../../../src/recording/schema.ts'
import { type PageServer, serveFolder } from '../../support/page-server.ts'
import { borrowBrowser } from '../../support/suite/shared-browser.ts'
import { fixturesDir } from '../helpers/harness.ts'

/**
 * A recording describes the element behind a ref before each action. It reads
 * the description from the latest view's capture where that capture can say
 * all a whole-page capture would; these tests hold the two to the same answer.
 */

let browser: Browser
let server: PageServer
const signal = new AbortController().signal

beforeAll(async () => {
  server = await serveFolder(fixturesDir)
  browser = await borrowBrowser()
})

afterAll(async () => {
  await browser?.close()
  await server?.close()
})

interface Described {
  ref: string
  fromView: ElementTarget | undefined
  /** Whether the description was read from the view's own capture (no whole-page capture was made). */
  derived: boolean
  /** Whether it was read from the view's own snapshot (no new one was taken). */
  onViewSnapshot: boolean
  fromWholePage: ElementTarget | undefined
}

/** Each ref the view shows (up to `limit`), described after a view, then after a whole-page capture. */
async function describeBothWays(page: Page, limit = 12): Promise<Described[]> {
  const registry = new RefRegistry()
  const view = await buildPageView(page, registry, { tabs: [] }, signal)
  const refs = [...view.text.matchAll(/\[ref=(\w+)\]/g)].map((match) => match[1] ?? '').slice(0, limit)
  const described: Described[] = []
  for (const ref of refs) {
    await buildPageView(page, registry, { tabs: [] }, signal)
    const viewSnapshot = registry.latestCapture?.snapshot
    const fromView = await describeTarget(page, registry, ref, signal)
    const derived = registry.latestCapture?.wholePage === false
    const onViewSnapshot = registry.latestCapture?.snapshot === viewSnapshot
    await capturePage(page, registry, { wholePage: true }, signal)
    const fromWholePage = await describeTarget(page, registry, ref, signal)
    described.push({ ref, fromView, derived, onViewSnapshot, fromWholePage })
  }
  return described
}

async function open(fixture: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } })
  await page.goto(`${server.url}/${fixture}`)
  return page
}

describe('the durable target read from the view', () => {
  test.each([
    'rows.html',
    'cards.html',
    'clickables.html',
    'icon-toolbar.html',
    'forms.html',
    'frames/iframes.html',
    'more-menu.html',
    'contact-card.html',
    'feed.html',
  ])('is the one a whole-page capture gives, on %s', async (fixture) => {
    const page = await open(fixture)
    try {
      const described = await describeBothWays(page)
      expect(described.length).toBeGreaterThan(0)
      for (const { ref, fromView, fromWholePage } of described) {
        expect({ ref, target: fromView }).toEqual({ ref, target: fromWholePage })
      }
    } finally {
      await page.close()
    }
  })

  test('look-alikes on a page that fits on screen are told apart from the view alone', async () => {
    const page = await open('rows.html')
    try {
      const described = await describeBothWays(page)
      const deletes = described.filter(({ fromView }) => fromView?.name === 'Delete')
      expect(deletes.length).toBeGreaterThan(2)
      for (const { fromView, derived } of deletes) {
        expect(derived).toBe(true)
        expect(fromView?.context?.length).toBeGreaterThan(0)
      }
    } finally {
      await page.close()
    }
  })

  test('on a page that scrolls, a named link unique on the page is read from the view, as a whole-page capture reads it', async () => {
    const page = await open('long-page.html')
    try {
      // Its 2,400 links make every whole-page capture slow: a few are enough.
      const described = await describeBothWays(page, 3)
      const links = described.filter(({ fromView }) => fromView?.role === 'link')
      expect(links.length).toBeGreaterThanOrEqual(2)
      for (const { ref, fromView, derived, fromWholePage } of links) {
        expect(derived).toBe(true)
        expect({ ref, target: fromView }).toEqual({ ref, target: fromWholePage })
      }
    } finally {
      await page.close()
    }
  })

  test('look-alikes on a page that scrolls are told apart on the snapshot of the view, as a whole-page capture tells them', async () => {
    const page = await open('cards.html')
    try {
      const shares = (await describeBothWays(page)).filter(({ fromView }) => fromView?.name === 'Share')
      expect(shares.length).toBeGreaterThan(2)
      for (const { ref, fromView, onViewSnapshot, fromWholePage } of shares) {
        expect(onViewSnapshot).toBe(true)
        expect(fromView?.context?.length).toBeGreaterThan(0)
        expect({ ref, target: fromView }).toEqual({ ref, target: fromWholePage })
      }
    } finally {
      await page.close()
    }
  })
})
