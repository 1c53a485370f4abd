import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { BrowserSessionOptions } from '../../../src/browser/browser-session.ts'
import type { BrowserPool } from '../../../src/browser/launch/launcher.ts'
import { ownOrigins } from '../../../src/browser/network/own-origins.ts'
import { Driver, testPool } from '../helpers/harness.ts'
import { type SpyHost, spyHost } from '../helpers/spy-host.ts'

/**
 * Origins no run reaches whatever `allowedDomains` says (the server's own,
 * cloud metadata), `blockPrivateNetworks`, and the browser-side bounds (tabs,
 * titles, URLs).
 */

let pool: BrowserPool
let site: SpyHost
let api: SpyHost

beforeAll(async () => {
  pool = testPool()
  site = await spyHost()
  api = await spyHost()
  api.pages.set('/v1/runs', '<h1>Other runs: secret task</h1>')
})

afterAll(async () => {
  await pool?.close()
  await site?.close()
  await api?.close()
})

const open = (options: Partial<BrowserSessionOptions>) => Driver.open(pool, options)

describe("the server's own origin", () => {
  test('is refused on every name that reaches it, even when allowedDomains lists it; other ports stay open', async () => {
    const driver = await open({
      allowedDomains: ['127.0.0.1', 'localhost'],
      deniedOrigins: ownOrigins('127.0.0.1', api.port),
    })
    try {
      for (const host of ['127.0.0.1', 'localhost']) {
        const result = await driver.act('navigate', { url: `http://${host}:${api.port}/v1/runs` })
        expect(result.ok).toBe(false)
        expect(result.text).toContain(`${host}:${api.port}`)
      }
      // A page script on an allowed origin cannot reach it either.
      site.pages.set(
        '/probe.html',
        `<script>fetch('http://localhost:${api.port}/v1/runs')</script><p>probe</p>`,
      )
      expect((await driver.act('navigate', { url: `${site.origin}/probe.html` })).ok).toBe(true)
      const observation = await driver.observe()
      expect(observation.pageView).toContain('probe')
      expect(api.hits).toEqual([])
    } finally {
      await driver.close()
    }
  })

  test('ownOrigins lists the loopback names of a loopback listener, and every address of 0.0.0.0', () => {
    expect(ownOrigins('127.0.0.1', 8787)).toEqual(
      expect.arrayContaining(['127.0.0.1:8787', 'localhost:8787', '[::1]:8787']),
    )
    const all = ownOrigins('0.0.0.0', 8787)
    expect(all).toEqual(expect.arrayContaining(['127.0.0.1:8787', 'localhost:8787', '[::1]:8787']))
    expect(all.every((origin) => origin.endsWith(':8787'))).toBe(true)
  })
})

describe('cloud metadata', () => {
  test.each([
    'http://169.254.169.254/latest/meta-data/',
    'http://metadata.google.internal/computeMetadata/v1/',
    'http://[fd00:ec2::254]/latest/meta-data/',
  ])('%s is refused before any request leaves, with a note', async (url) => {
    const driver = await open({ allowedDomains: undefined } as never)
    try {
      const result = await driver.act('navigate', { url })
      expect(result.ok).toBe(false)
      expect(result.text).toMatch(/metadata/)
      // A page script asking for it is refused too, and the model reads why.
      const host = new URL(url).host
      site.pages.set('/meta.html', `<script>fetch('${url}').catch(() => {})</script><p>meta</p>`)
      await driver.act('navigate', { url: `${site.origin}/meta.html` })
      let notes = ''
      for (let i = 0; i < 20 && !notes.includes(host); i++) notes += (await driver.observe()).notes.join('\n')
      expect(notes).toContain(host)
      expect(notes).toMatch(/metadata/)
    } finally {
      await driver.close()
    }
  })
})

describe('blockPrivateNetworks', () => {
  test('refuses loopback by literal address and by a name that resolves to it', async () => {
    const driver = await open({ allowedDomains: undefined, blockPrivateNetworks: true } as never)
    try {
      for (const host of ['127.0.0.1', 'localhost']) {
        const result = await driver.act('navigate', { url: `http://${host}:${api.port}/v1/runs` })
        const observation = await driver.observe()
        expect(observation.pageView).not.toContain('secret task')
        expect(`${result.text}\n${observation.notes.join('\n')}`).toMatch(/private/)
      }
      expect(api.hits).toEqual([])
    } finally {
      await driver.close()
    }
  })

  test('is off by default: private addresses stay reachable', async () => {
    const driver = await open({ allowedDomains: undefined } as never)
    try {
      expect((await driver.act('navigate', { url: `${site.origin}/` })).ok).toBe(true)
    } finally {
      await driver.close()
    }
  })
})

describe('bounds', () => {
  test('tabs beyond the cap are closed at once, with a note and a warning', async () => {
    site.pages.set(
      '/many.html',
      `<p>opener</p><script>for (let i = 0; i < 8; i++) window.open('/tab-' + i + '.html')</script>`,
    )
    const driver = await open({ allowedDomains: undefined, maxTabs: 3 } as never)
    try {
      await driver.act('navigate', { url: `${site.origin}/many.html` })
      const observation = await driver.observe()
      const later = await driver.observe()
      expect(later.tabs.length).toBeLessThanOrEqual(3)
      const notes = [...observation.notes, ...later.notes].join('\n')
      expect(notes).toMatch(/at most 3 tabs/)
      const warnings = [...(observation.warnings ?? []), ...(later.warnings ?? [])]
      expect(warnings.some((warning) => warning.code === 'tab_limit')).toBe(true)
      expect((await driver.act('open_tab', { url: `${site.origin}/` })).ok).toBe(false)
    } finally {
      await driver.close()
    }
  })

  test('a huge title and URL are cut in the observation, its tabs and the page view', async () => {
    site.pages.set(
      '/huge.html',
      `<p>huge</p><script>document.title = 'T'.repeat(5_000_000); history.replaceState(null, '', '/huge.html#' + 'u'.repeat(1_500_000))</script>`,
    )
    const driver = await open({ allowedDomains: undefined } as never)
    try {
      await driver.act('navigate', { url: `${site.origin}/huge.html` })
      const observation = await driver.observe()
      expect(observation.title.length).toBeLessThanOrEqual(300)
      expect(observation.url.length).toBeLessThanOrEqual(300)
      for (const tab of observation.tabs) {
        expect(tab.title.length).toBeLessThanOrEqual(300)
        expect(tab.url.length).toBeLessThanOrEqual(300)
      }
      expect(observation.notes.join('\n').length).toBeLessThan(2000)
      expect(observation.pageView.length).toBeLessThan(30_000)
      expect((observation.warnings ?? []).map((warning) => warning.code).sort()).toEqual([
        'title_truncated',
        'url_truncated',
      ])
    } finally {
      await driver.close()
    }
  })
})
