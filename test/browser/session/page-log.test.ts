import { afterAll, beforeAll, expect, test } from 'vitest'
import type { BrowserPool } from '../../../src/browser/launch/launcher.ts'
import { takeConsole } from '../../../src/browser/session/console-hook.ts'
import { pageLogBounds } from '../../../src/browser/session/page-log.ts'
import type { BrowserToolSurface } from '../../../src/browser/session/tool-surface.ts'
import { type PageServer, startPageServer } from '../../support/page-server.ts'
import { Driver, fixturesDir, testPool } from '../helpers/harness.ts'

// What a run's pages report, read as the agent reads it: from the next observation and through
// read_console / read_network. The pages are written as careless sites are: a save that fails in the
// console and the network while the page shows nothing, and a page that logs without end.

let pool: BrowserPool
let site: PageServer

/**
 * A page that tries to make the console read large: it finds the reader (the one function-valued global it
 * can neither write nor reconfigure: its name is random, its shape is not), tries to replace it, changes its
 * prototypes and logs a 5 MB text.
 */
const readerOf = `Object.getOwnPropertyNames(window).find((key) => {
    const own = Object.getOwnPropertyDescriptor(window, key)
    return own !== undefined && typeof own.value === 'function' && !own.writable && !own.configurable
  })`
const hostileConsole = `<!doctype html><meta charset="utf-8"><title>Hostile</title><button>Log</button><script>
  const huge = 'x'.repeat(5_000_000)
  const reader = ${readerOf}
  document.title = reader ? 'Hostile, the reader found' : 'Hostile'
  try { Object.defineProperty(window, reader, { value: () => ({ entries: [{ level: 'error', text: huge }], total: 1 }) }) } catch {}
  try { window[reader] = () => ({ entries: [{ level: 'error', text: huge }], total: 1 }) } catch {}
  String.prototype.slice = function () { return huge }
  Array.prototype.join = function () { return huge }
  document.querySelector('button').addEventListener('click', () => {
    console.error({ toString: () => huge })
    console.error('short', 'and plain')
  })
</script>`

beforeAll(async () => {
  site = await startPageServer({
    root: fixturesDir,
    pages: { '/hostile-console': hostileConsole },
    routes: {
      '/api/save': (_request, response) => void response.writeHead(500).end('{"error":"boom"}'),
    },
  })
  pool = testPool()
})
afterAll(async () => {
  await pool?.close()
  await site?.close()
})

/** The careless Save: a plain div with a click listener, which the view shows as `generic [clickable]: Save`. */
function saveRef(driver: Driver): string {
  const line = driver.refs().find((each) => each.line.endsWith(': Save'))
  if (!line) throw new Error(`No Save in the view:\n${driver.view}`)
  return line.ref
}

async function openAt(page: string): Promise<Driver> {
  const driver = await Driver.open(pool, { startUrl: `${site.url}/page-log/${page}` })
  await driver.observe()
  return driver
}

test('a click whose handler logs, throws and fails two requests: the next observation lists them, once', async () => {
  const driver = await openAt('careless-save.html')
  try {
    expect(driver.last?.pageLog).toBeUndefined()
    await driver.act('click', { ref: saveRef(driver) })
    const { pageLog } = await driver.observe()
    expect(pageLog?.console).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ level: 'error', text: 'could not save the note ' }),
        expect.objectContaining({ level: 'warning', text: 'the save endpoint is deprecated' }),
        expect.objectContaining({ level: 'exception', text: expect.stringContaining("reading 'x'") }),
      ]),
    )
    expect(pageLog?.network).toEqual(
      expect.arrayContaining([
        // The query, where tokens travel, is not kept.
        { method: 'POST', url: `${site.url}/api/save?…`, status: 500, resourceType: 'fetch' },
        { method: 'GET', url: 'http://blocked.example/beacon', refused: 'not in allowedDomains' },
      ]),
    )
    expect(JSON.stringify(pageLog)).not.toContain('t0ps3cr3t')
    // Chromium's own "Failed to load resource" line is no console call: the request is listed.
    expect(pageLog?.console).toHaveLength(3)
    // The refusal once, with its reason: not again as the request the guard's route aborted.
    expect(pageLog?.network).toHaveLength(2)
    expect(pageLog?.omitted).toBe(0)
    expect((await driver.observe()).pageLog).toBeUndefined()
  } finally {
    await driver.close()
  }
})

test('read_console and read_network { failedOnly } return the recent entries; read_network alone every request', async () => {
  const driver = await openAt('careless-save.html')
  try {
    await driver.act('click', { ref: saveRef(driver) })
    await driver.observe()
    const console = await driver.act('read_console', {})
    expect(console.text).toContain('console error "could not save the note "')
    expect(console.text).toContain('uncaught exception "TypeError: ')
    const failed = await driver.act('read_network', { failedOnly: true })
    // In the order they ended: the refusal comes first, the 500 when the server has answered.
    expect(failed.text.split('\n').sort()).toEqual([
      'GET http://blocked.example/beacon → refused: not in allowedDomains',
      `POST ${site.url}/api/save?… → 500`,
    ])
    const every = await driver.act('read_network', {})
    expect(every.text).toContain(`GET ${site.url}/page-log/careless-save.html → 200`)
    expect(every.text).toContain(`POST ${site.url}/api/save?… → 500`)
  } finally {
    await driver.close()
  }
})

test("a request only the guard's proxy sees (no allowedDomains) is logged as refused, with the proxy's reason", async () => {
  const denied = await startPageServer({})
  const to = encodeURIComponent(`${denied.url}/ping?key=k3y`)
  const driver = await Driver.open(pool, {
    startUrl: `${site.url}/page-log/guarded-fetch.html?to=${to}`,
    allowedDomains: undefined,
    deniedOrigins: [denied.url.replace('http://', '')],
  })
  try {
    await driver.observe()
    await driver.act('click', { ref: driver.ref('button', 'Ping') })
    const { pageLog } = await driver.observe()
    expect(pageLog?.network).toEqual([
      {
        method: 'GET',
        url: `${denied.url}/ping?…`,
        refused: "the Sextant server's own address",
        resourceType: 'fetch',
      },
    ])
  } finally {
    await driver.close()
    await denied.close()
  }
})

test('a page that rewrites its prototypes and the reader cannot make the console read large', async () => {
  const driver = await openAt('../hostile-console')
  try {
    await driver.act('click', { ref: driver.ref('button', 'Log') })
    // What crosses from the page, before this process cuts anything.
    const page = await (driver.session as unknown as BrowserToolSurface).activePage()
    // The premise: the page found the reader it tried to replace.
    expect(await page.title()).toBe('Hostile, the reader found')
    const read = await takeConsole(page, String(await page.evaluate<unknown>(readerOf)))
    expect(read.entries.map((entry) => entry.text.length)).toEqual([pageLogBounds.textChars, 15])
    expect(read.entries[1]?.text).toBe('short and plain')
    expect(read.total).toBe(2)
  } finally {
    await driver.close()
  }
})

test('a page that logs 10,000 errors: the click is not slowed, a step lists a few and counts the rest, the ring keeps its bound', async () => {
  const driver = await openAt('console-flood.html')
  try {
    // Listened to, the 10,000 messages crossing to this process held the click's own answer past its timeout.
    const clicked = await driver.act('click', { ref: driver.ref('button', 'Log') })
    expect(clicked.text).toBe("Clicked button 'Log'.")
    const { pageLog } = await driver.observe()
    const listed = pageLog?.console ?? []
    expect(listed).toHaveLength(pageLogBounds.perStep)
    expect(listed[0]?.text).toBe('flood 9901')
    expect(listed.length + (pageLog?.omitted ?? 0)).toBe(10_000)
    const kept = (await driver.act('read_console', {})).text.split('\n')
    expect(kept).toHaveLength(30)
    expect(kept.at(-1)).toBe(`console error "flood 10000" (${site.url}/page-log/console-flood.html)`)
    // The session's own ring, as the actions see it: the Playwright session is a tool surface.
    const ring = (driver.session as unknown as BrowserToolSurface).pageLog
    expect(ring.recentConsole(1_000)).toHaveLength(pageLogBounds.consoleEntries)
  } finally {
    await driver.close()
  }
})
