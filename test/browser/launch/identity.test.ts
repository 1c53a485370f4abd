import { execFileSync } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type BrowserIdentity, identityContextOptions } from '../../../src/browser/launch/identity.ts'
import { createBrowserPool, launchBrowser } from '../../../src/browser/launch/launcher.ts'
import { ConfigError, loadConfig } from '../../../src/config.ts'
import { libraryPage } from '../../support/bundle.ts'
import { type PageServer, startPageServer } from '../../support/page-server.ts'
import { testTools } from '../../support/suite/test-tools.ts'
import { until } from '../../support/until.ts'
import { Driver } from '../helpers/harness.ts'

// A site that turns headless browsers away is as unreachable as an element with no ref. BotD
// (FingerprintJS's open-source detector), bundled from its npm package into a local page, judges
// the browser each identity presents; what the server saw of it is judged beside.

let server: PageServer
const seen: { userAgent: string; clientHints: string }[] = []

beforeAll(async () => {
  const botd = await libraryPage({ entry: 'botd.ts', title: 'BotD', body: '<h1 id="verdict">pending</h1>' })
  server = await startPageServer({
    routes: {
      '/botd': (request, response) => {
        seen.push({
          userAgent: request.headers['user-agent'] ?? '',
          clientHints: String(request.headers['sec-ch-ua'] ?? ''),
        })
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(botd)
      },
    },
  })
}, 60_000)

afterAll(async () => {
  await server?.close()
})

async function verdictOf(
  identity: BrowserIdentity,
  display: { headed?: boolean; virtualDisplay?: boolean } = {},
) {
  const pool = createBrowserPool({ identity, ...display })
  const driver = await Driver.open(pool)
  try {
    seen.length = 0
    await driver.act('navigate', { url: `${server.url}/botd` })
    await until(async () => !(await driver.observe()).pageView.includes('"pending"'), {
      what: 'BotD to decide',
    })
    const heading = /heading "([^"]*)"/.exec(driver.view)?.[1] ?? driver.view
    return { verdict: heading, request: seen[0] }
  } finally {
    await driver.close()
    await pool.close()
  }
}

describe('the browser as sites see it', () => {
  test('by default, BotD reads "not a bot", and neither the user agent nor the client hints say Headless', async () => {
    const { verdict, request } = await verdictOf('browser')
    expect(verdict).toBe('not a bot')
    expect(request?.userAgent).toMatch(/ Chrome\/\d+/)
    expect(request?.userAgent).not.toMatch(/headless/i)
    expect(request?.clientHints).not.toMatch(/headless/i)
  })

  test('with the automation identity, BotD reads it as a headless bot', async () => {
    const { verdict, request } = await verdictOf('automation')
    expect(verdict).toMatch(/^bot: headless_chrome \(/)
    expect(request?.userAgent).toMatch(/HeadlessChrome/)
  })

  test("a browser's own user agent is asked once, not by every session it opens", async () => {
    const browser = await launchBrowser({})
    try {
      let asked = 0
      const ask = browser.newBrowserCDPSession.bind(browser)
      browser.newBrowserCDPSession = () => {
        asked++
        return ask()
      }
      const first = await identityContextOptions(browser, 'browser')
      const second = await identityContextOptions(browser, 'browser')
      expect(first.userAgent).toMatch(/ Chrome\/\d+/)
      expect(first.userAgent).not.toMatch(/headless/i)
      expect(second).toEqual(first)
      expect(asked).toBe(1)
    } finally {
      await browser.close()
    }
  })
})

/** The Xvfb servers running on this machine now. */
function xvfbProcesses(): string[] {
  try {
    return execFileSync('pgrep', ['-x', 'Xvfb'], { encoding: 'utf8' }).split('\n').filter(Boolean)
  } catch {
    return [] // pgrep exits 1 when nothing matches
  }
}

describe('SEXTANT_HEADED=virtual', () => {
  test.skipIf(!testTools.xvfb.present())(
    'a headed browser in a display of its own is not a bot to BotD, and its display ends with it',
    async () => {
      const before = xvfbProcesses()
      const { verdict, request } = await verdictOf('browser', { headed: true, virtualDisplay: true })
      expect(verdict).toBe('not a bot')
      expect(request?.userAgent).not.toMatch(/headless/i)
      await until(() => xvfbProcesses().length === before.length, { what: 'the virtual display to end' })
    },
  )

  test('the settings are read and checked by the configuration', () => {
    expect(loadConfig({ SEXTANT_HEADED: 'virtual' }).headed).toBe('virtual')
    expect(loadConfig({ SEXTANT_HEADED: 'yes' }).headed).toBe(true)
    expect(loadConfig({}).browserIdentity).toBe('browser')
    expect(loadConfig({ SEXTANT_BROWSER_IDENTITY: 'automation' }).browserIdentity).toBe('automation')
    expect(() => loadConfig({ SEXTANT_BROWSER_IDENTITY: 'stealthy' })).toThrow(ConfigError)
    expect(() => loadConfig({ SEXTANT_BROWSER_IDENTITY: 'stealthy' })).toThrow(/SEXTANT_BROWSER_IDENTITY/)
  })
})
