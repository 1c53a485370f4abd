import { spawn } from 'node:child_process'
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type BrowserServer, chromium } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest'
import {
  BrowserNotFoundError,
  chromiumFlags,
  createBrowserPool,
  findChromium,
  launchBrowser,
  launchOptionsFrom,
  openStandaloneSession,
} from '../../../src/browser/launch/launcher.ts'
import { ConfigError, loadBrowserConfig, loadConfig } from '../../../src/config.ts'
import { AbortError } from '../../../src/tool.ts'
import { scriptedModel } from '../../support/models/scripted-model.ts'
import { type PageServer as StaticServer, serveFolder } from '../../support/page-server.ts'
import { collect, doneOf, ofType } from '../../support/run.ts'
import { Driver, fixturesDir } from '../helpers/harness.ts'

let scratch: string
let server: StaticServer
const signal = new AbortController().signal

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'sextant-launcher-'))
  server = await serveFolder(fixturesDir)
})

afterAll(async () => {
  await server?.close()
  if (scratch) await rm(scratch, { recursive: true, force: true })
})

async function fakeExecutable(path: string): Promise<string> {
  await mkdir(join(path, '..'), { recursive: true })
  await writeFile(path, '#!/bin/sh\n')
  await chmod(path, 0o755)
  return path
}

describe('findChromium', () => {
  test('looks at the given path, then the newest Playwright cache, then the per-user cache', async () => {
    const explicit = await fakeExecutable(join(scratch, 'explicit', 'chrome'))
    const fromEnv = await fakeExecutable(join(scratch, 'env', 'chrome'))
    const cache = join(scratch, 'cache')
    await fakeExecutable(join(cache, 'chromium-1100', 'chrome-linux', 'chrome'))
    const newest = await fakeExecutable(join(cache, 'chromium-1200', 'chrome-linux64', 'chrome'))
    const where = { browsersPath: cache, searchPath: '', platform: 'linux' } as const
    expect(findChromium({ executablePath: explicit, ...where })).toBe(explicit)
    expect(findChromium(where)).toBe(newest)
    // SEXTANT_CHROMIUM and PLAYWRIGHT_BROWSERS_PATH reach the search through the configuration.
    const configured = launchOptionsFrom(
      loadBrowserConfig({ SEXTANT_CHROMIUM: fromEnv, PLAYWRIGHT_BROWSERS_PATH: cache }),
    )
    expect(findChromium({ ...configured, searchPath: '', platform: 'linux' })).toBe(fromEnv)
    const cacheOnly = launchOptionsFrom(loadBrowserConfig({ PLAYWRIGHT_BROWSERS_PATH: cache }))
    expect(findChromium({ ...cacheOnly, searchPath: '', platform: 'linux' })).toBe(newest)
    const home = join(scratch, 'home')
    await fakeExecutable(join(home, '.cache', 'ms-playwright', 'chromium-900', 'chrome-linux', 'chrome'))
    expect(findChromium({ searchPath: '', platform: 'linux', home })).toBe(
      join(home, '.cache', 'ms-playwright', 'chromium-900', 'chrome-linux', 'chrome'),
    )
  })

  test('falls back to chromium-browser and Google Chrome on PATH', async () => {
    const bin = join(scratch, 'bin')
    const chrome = await fakeExecutable(join(bin, 'google-chrome'))
    const found = findChromium({ searchPath: bin, platform: 'linux', home: join(scratch, 'nowhere') })
    // /usr/bin/chromium comes first when the machine has it.
    expect([chrome, '/usr/bin/chromium']).toContain(found)
    const browser = await fakeExecutable(join(bin, 'chromium-browser'))
    const second = findChromium({ searchPath: bin, platform: 'linux', home: join(scratch, 'nowhere') })
    expect([browser, '/usr/bin/chromium']).toContain(second)
  })

  test('says what to install when a given path is not a browser', async () => {
    const error = await launchBrowser(
      launchOptionsFrom(loadBrowserConfig({ SEXTANT_CHROMIUM: join(scratch, 'missing') })),
    ).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(BrowserNotFoundError)
    const message = (error as Error).message
    expect(message).toContain('SEXTANT_CHROMIUM points at')
    expect(message).toContain('apt-get install chromium')
    expect(message).toContain('brew install --cask chromium')
    expect(message).toContain('npx playwright-core install chromium')
  })

  test('launch flags keep an offline Chromium quiet', () => {
    expect(chromiumFlags).toEqual([
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
    ])
  })
})

describe('browser pool', () => {
  test('one browser, a context per session; a failed launch is retried', async () => {
    // The path holds no browser until the first launches have failed.
    const later = join(scratch, 'later', 'chrome')
    const pool = createBrowserPool({ executablePath: later })
    try {
      await expect(pool.newSession({ runId: 'a' }, signal)).rejects.toBeInstanceOf(BrowserNotFoundError)
      await expect(pool.warm()).rejects.toBeInstanceOf(BrowserNotFoundError)
      await fakeExecutable(later)
      await writeFile(later, `#!/bin/sh\nexec ${JSON.stringify(findChromium())} "$@"\n`)
      await pool.warm()
      const options = { allowedDomains: ['127.0.0.1'], startUrl: `${server.url}/article.html` }
      const first = await Driver.open(pool, options)
      const second = await Driver.open(pool, options)
      await first.act('execute_javascript', { script: "localStorage.setItem('who', 'first')" })
      const other = await second.act('execute_javascript', { script: "localStorage.getItem('who')" })
      expect(other.text).toBe('Result: null')

      await first.close()
      await first.close()
      await expect(first.observe()).rejects.toThrow('The browser session is closed.')
      expect((await second.observe()).title).toBe('Article')

      const aborted = new AbortController()
      aborted.abort()
      await expect(pool.newSession({ runId: 'c' }, aborted.signal)).rejects.toBeInstanceOf(AbortError)
    } finally {
      await pool.close()
    }
    await expect(pool.newSession({ runId: 'd' }, signal)).rejects.toThrow('The browser pool is closed.')
  })

  test('connects to a remote browser through SEXTANT_BROWSER_WS', async () => {
    const remote: BrowserServer = await chromium.launchServer({
      executablePath: findChromium(),
      args: [...chromiumFlags, ...(process.getuid?.() === 0 ? ['--no-sandbox'] : [])],
    })
    // No local Chromium can be found with this environment: only the remote one can serve.
    const pool = createBrowserPool(
      launchOptionsFrom(
        loadBrowserConfig({
          SEXTANT_BROWSER_WS: remote.wsEndpoint(),
          SEXTANT_CHROMIUM: join(scratch, 'no-such-chrome'),
        }),
      ),
    )
    try {
      const driver = await Driver.open(pool, { startUrl: `${server.url}/forms.html` })
      await driver.observe()
      expect(driver.last!.title).toBe('Every input')
      expect((await driver.act('type', { ref: driver.ref('textbox', 'Full name'), text: 'Remote' })).ok).toBe(
        true,
      )
      await driver.close()
    } finally {
      await pool.close()
      await remote.close()
    }
  })
})

async function freePort(): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address() as { port: number }
  await new Promise<void>((resolve) => probe.close(() => resolve()))
  return port
}

describe('CDP', () => {
  test('connects to a running Chrome through SEXTANT_CDP_URL', async () => {
    const port = await freePort()
    const chrome = spawn(
      findChromium(),
      [
        ...chromiumFlags,
        ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
        '--headless=new',
        `--remote-debugging-port=${port}`,
        `--user-data-dir=${join(scratch, 'cdp-profile')}`,
        'about:blank',
      ],
      { stdio: 'ignore' },
    )
    const pool = createBrowserPool(
      launchOptionsFrom(
        loadBrowserConfig({
          SEXTANT_CDP_URL: `http://127.0.0.1:${port}`,
          SEXTANT_CHROMIUM: join(scratch, 'no-such-chrome'),
        }),
      ),
    )
    try {
      await expect
        .poll(
          () =>
            fetch(`http://127.0.0.1:${port}/json/version`).then(
              (r) => r.ok,
              () => false,
            ),
          { timeout: 20_000 },
        )
        .toBe(true)
      const driver = await Driver.open(pool, { startUrl: `${server.url}/article.html` })
      expect((await driver.observe()).title).toBe('Article')
      await driver.close()
    } finally {
      await pool.close()
      chrome.kill()
    }
  })
})

describe('standalone session', () => {
  afterEach(() => {
    vi.unstubAllEnvs()
  })

  test('owns its browser and closes it with the session', async () => {
    const session = await openStandaloneSession(
      { runId: 'solo', startUrl: `${server.url}/article.html`, allowedDomains: ['127.0.0.1'] },
      signal,
    )
    const observation = await session.observe(signal)
    expect(observation.title).toBe('Article')
    expect(observation.pageView).toContain('heading "Quarterly report" [level=1]')
    await session.close()
    await expect(session.observe(signal)).rejects.toThrow('closed')
  })

  test('a run without a browser refuses SEXTANT_BROWSER_WS with SEXTANT_CDP_URL, as the CLI does', async () => {
    const both = { SEXTANT_BROWSER_WS: 'ws://127.0.0.1:1/browser', SEXTANT_CDP_URL: 'http://127.0.0.1:2' }
    const cli = (() => {
      try {
        loadConfig(both)
      } catch (error) {
        return error
      }
    })()
    expect(cli).toBeInstanceOf(ConfigError)
    const cliMessage = (cli as ConfigError).message
    expect(cliMessage).toContain('SEXTANT_BROWSER_WS: set only one of SEXTANT_BROWSER_WS and SEXTANT_CDP_URL')

    // The library reads the same variables from its own environment.
    vi.stubEnv('SEXTANT_BROWSER_WS', both.SEXTANT_BROWSER_WS)
    vi.stubEnv('SEXTANT_CDP_URL', both.SEXTANT_CDP_URL)
    await expect(openStandaloneSession({ runId: 'both' }, signal)).rejects.toThrow(cliMessage)
    expect(() => createBrowserPool()).toThrow(cliMessage)
    const model = scriptedModel([])
    const events = await collect({ task: 'Read the page', model })
    expect(ofType(events, 'error').map((event) => event.message)).toEqual([
      `The browser could not be started: ${cliMessage}`,
    ])
    expect(doneOf(events).reason).toBe('error')
    expect(model.doStreamCalls).toHaveLength(0)
  })
})
