import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { BrowserSessionOptions } from '../../../src/browser/browser-session.ts'
import type { BrowserPool } from '../../../src/browser/launch/launcher.ts'
import { ownOrigins } from '../../../src/browser/network/own-origins.ts'
import { Driver, testPool } from '../helpers/harness.ts'
import { type SpyHost, spyHost } from '../helpers/spy-host.ts'

/**
 * The browser's guard judges the address a URL reaches, whatever its
 * spelling: a page (or the model, steered by one) that writes the server's
 * own address or the metadata service as Chromium's URL parser rewrites it
 * reaches nothing. The listener stands for the server and must see no request.
 */

/** 127.0.0.1 as a page can write it; Chromium turns the IPv6 ones into hex (`[::ffff:7f00:1]`). */
const loopbackSpellings = [
  '[::ffff:7f00:1]',
  '[::ffff:127.0.0.1]',
  '[::7f00:1]',
  '[::ffff:0:7f00:1]',
  '[64:ff9b::7f00:1]',
  '0x7f.1',
  '2130706433',
  '0177.0.0.1',
  '127.1',
]
const metadataSpellings = [
  '[::ffff:a9fe:a9fe]',
  '[::ffff:169.254.169.254]',
  '[::a9fe:a9fe]',
  '[64:ff9b::a9fe:a9fe]',
  '[::ffff:0:a9fe:a9fe]',
  '2852039166',
  'metadata.google.internal.',
]

let pool: BrowserPool
let site: SpyHost
let api: SpyHost

beforeAll(async () => {
  pool = testPool()
  site = await spyHost()
  api = await spyHost()
  api.pages.set('/healthz', '<h1>server health: secret</h1>')
})

afterAll(async () => {
  await pool?.close()
  await site?.close()
  await api?.close()
})

const open = (options: Partial<BrowserSessionOptions>) => Driver.open(pool, options)

/** A page on an allowed origin that fetches every URL from its own script. */
async function pageFetching(driver: Driver, urls: string[]): Promise<string> {
  const calls = urls.map((url) => `fetch(${JSON.stringify(url)}).catch(() => {})`).join(';')
  site.pages.set('/probe.html', `<script>${calls}</script><p>probe</p>`)
  expect((await driver.act('navigate', { url: `${site.origin}/probe.html` })).ok).toBe(true)
  let notes = ''
  for (let i = 0; i < 20 && (notes.match(/refused/g) ?? []).length < urls.length; i++)
    notes += (await driver.observe()).notes.join('\n')
  return notes
}

describe("the server's own address in every spelling", () => {
  test.each(loopbackSpellings)('%s is refused to the model and to a page script', async (host) => {
    const driver = await open({ allowedDomains: undefined, deniedOrigins: ownOrigins('127.0.0.1', api.port) })
    try {
      const url = `http://${host}:${api.port}/healthz`
      const result = await driver.act('navigate', { url })
      expect(result.ok, result.text).toBe(false)
      expect(result.text).toMatch(/own address/)
      expect(await pageFetching(driver, [url])).toMatch(/own address/)
      expect(api.hits).toEqual([])
    } finally {
      await driver.close()
    }
  })
})

describe('cloud metadata in every spelling', () => {
  test.each(metadataSpellings)('%s is refused before any request leaves', async (host) => {
    const driver = await open({ allowedDomains: undefined } as never)
    try {
      const url = `http://${host}/latest/meta-data/`
      const result = await driver.act('navigate', { url })
      expect(result.ok).toBe(false)
      expect(result.text).toMatch(/metadata/)
      expect(await pageFetching(driver, [url])).toMatch(/metadata/)
    } finally {
      await driver.close()
    }
  })
})

describe('blockPrivateNetworks in every spelling', () => {
  test('no loopback spelling reaches a listener', async () => {
    const driver = await open({ allowedDomains: undefined, blockPrivateNetworks: true } as never)
    const inside = await spyHost()
    try {
      for (const host of loopbackSpellings) {
        const result = await driver.act('navigate', { url: `http://${host}:${inside.port}/` })
        const observation = await driver.observe()
        expect(`${result.text}\n${observation.notes.join('\n')}`, host).toMatch(/private/)
      }
      expect(inside.hits).toEqual([])
    } finally {
      await driver.close()
      await inside.close()
    }
  })
})
