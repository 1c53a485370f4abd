import { request } from 'node:http'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { actionTurn, doneTurn, type FakeOpenAI, startFakeOpenAI } from '../../support/models/fake-openai.ts'
import { type PageServer, startPageServer } from '../../support/page-server.ts'
import { borrowBrowser } from '../../support/suite/shared-browser.ts'
import { events, type Harness, postRun, readSse, runIdOf, startHarness } from '../support.ts'

// A page on another site, open in the person's own browser, cannot change a run on a server without a
// token: its simple cross-site POST (text/plain, no preflight) is refused before any route. The viewer
// (same-origin) and API clients (no Origin) are not.

let fake: FakeOpenAI
let harness: Harness
let pages: PageServer
let browser: Browser

beforeAll(async () => {
  fake = await startFakeOpenAI()
  pages = await startPageServer({
    pages: {
      '/': '<!doctype html><title>Start</title><p>Working.</p>',
      // The hostile page: it fires a takeover at the run named in its hash, as any site can.
      '/attack': () =>
        `<!doctype html><title>Attack</title><script>
          const [api, id] = decodeURIComponent(location.hash.slice(1)).split('|')
          fetch(api + '/v1/runs/' + id + '/takeover', { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: 'x' })
            .finally(() => { document.title = 'sent' })
        </script>`,
    },
  })
  harness = await startHarness({ fake, browser: 'chromium' })
  browser = await borrowBrowser()
})

afterAll(async () => {
  await browser?.close()
  await harness?.close()
  await pages?.close()
  await fake?.close()
})

function post(path: string, headers: Record<string, string>): Promise<number> {
  const { hostname, port } = new URL(harness.url)
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path, method: 'POST', headers }, (res) => {
      res.resume()
      resolve(res.statusCode ?? 0)
    })
    req.on('error', reject)
    req.end('x')
  })
}

test("another site's page cannot take a run over with a simple POST; nothing reaches the route", async () => {
  fake.enqueue(actionTurn('wait', { seconds: 2 }), doneTurn())
  const response = await postRun(harness.url, { task: 'Wait.', startUrl: `${pages.url}/` })
  const id = runIdOf(response)
  let attacked: Promise<void> | undefined
  const list = events(
    await readSse(response, (message) => {
      if (message.data.type === 'tool_call_start' && !attacked) {
        attacked = (async () => {
          const page = await browser.newPage()
          await page.goto(`${pages.url}/attack#${encodeURIComponent(`${harness.url}|${id}`)}`)
          await page.waitForFunction(() => document.title === 'sent')
          await page.close()
        })()
      }
      return false
    }),
  )
  await attacked
  expect(list.find((event) => event.type === 'takeover_started')).toBeUndefined()
  expect(list.at(-1)).toMatchObject({ type: 'done', reason: 'model_stop' })
  // The browser's request did arrive, and was answered 403 before the route.
  expect(harness.logs).toContainEqual(
    expect.objectContaining({ method: 'POST', path: `/v1/runs/${id}/takeover`, status: 403 }),
  )
})

test('the headers decide: cross-site and same-site are refused; same-origin, none and no header pass the check', async () => {
  const own = new URL(harness.url).host
  const path = '/v1/runs/run_nope/takeover'
  const plain = { 'content-type': 'text/plain' }
  expect(await post(path, { ...plain, 'sec-fetch-site': 'cross-site', origin: 'http://evil.example' })).toBe(
    403,
  )
  expect(await post(path, { ...plain, 'sec-fetch-site': 'same-site', origin: 'http://127.0.0.1:1' })).toBe(
    403,
  )
  // A browser that sends no Sec-Fetch-Site is judged by its Origin.
  expect(await post(path, { ...plain, origin: 'http://evil.example' })).toBe(403)
  expect(await post(path, { ...plain, origin: 'null' })).toBe(403)
  // The viewer, a typed request and API clients reach the route (404: no such run).
  expect(await post(path, { ...plain, 'sec-fetch-site': 'same-origin', origin: `http://${own}` })).toBe(404)
  expect(await post(path, { ...plain, origin: `http://${own}` })).toBe(404)
  expect(await post(path, { ...plain, 'sec-fetch-site': 'none' })).toBe(404)
  expect(await post(path, plain)).toBe(404)
})
