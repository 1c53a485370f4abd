import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type BrowserServer, chromium } from 'playwright-core'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { chromiumFlags } from '../../../src/browser/launch/launcher.ts'
import { doneTurn, type FakeOpenAI, navigateTurn, startFakeOpenAI } from '../../support/models/fake-openai.ts'
import { freePort } from '../../support/postgres-cluster.ts'
import { events, postRun, readSse, startFleetServer, startTestPage } from '../support.ts'

// A fleet of two browser endpoints from SEXTANT_BROWSER_WS, one of them down: real Chromium
// behind a Playwright browser server, and a port nothing listens on.

let fake: FakeOpenAI
let remote: BrowserServer
let page: Awaited<ReturnType<typeof startTestPage>>
const runsDir = mkdtempSync(join(tmpdir(), 'sextant-fleet-'))

beforeAll(async () => {
  fake = await startFakeOpenAI()
  page = await startTestPage()
  remote = await chromium.launchServer({
    executablePath: '/usr/bin/chromium',
    args: [...chromiumFlags, ...(process.getuid?.() === 0 ? ['--no-sandbox'] : [])],
  })
})
afterAll(async () => {
  await remote.close()
  await page.close()
  await fake.close()
  rmSync(runsDir, { recursive: true, force: true })
})

test('a run whose endpoint is down moves to the other before its first step; /metrics shows the one left out', async () => {
  const down = `ws://127.0.0.1:${await freePort()}/`
  const fleet = await startFleetServer(
    { SEXTANT_BROWSER_WS: `${down},${remote.wsEndpoint()}`, SEXTANT_RUNS_DIR: runsDir },
    fake,
  )
  try {
    fake.enqueue(navigateTurn(page.url), doneTurn('Read it on the fleet.'))
    const list = events(await readSse(await postRun(fleet.url, { task: 'Read the test page.' })))
    expect(
      list.find((event) => event.type === 'observation' && event.title === 'Sextant Test Page'),
    ).toBeDefined()
    expect(list.at(-1)).toMatchObject({ type: 'done', reason: 'model_stop' })
    expect(
      fleet.logs.some((line) => line.msg === 'a browser endpoint failed; leaving it out for a while'),
    ).toBe(true)

    const metrics = await (await fetch(`${fleet.url}/metrics`)).text()
    expect(metrics).toContain(`sextant_browser_endpoint_up{endpoint="${down}"} 0`)
    expect(metrics).toContain(`sextant_browser_endpoint_up{endpoint="${remote.wsEndpoint()}"} 1`)
    expect(metrics).toContain(`sextant_browser_endpoint_failures{endpoint="${down}"} 1`)
  } finally {
    await fleet.close()
  }
})
