import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { AgentEvent } from '../../src/events/events.ts'
import { type ForwardProxy, startForwardProxy } from '../support/forward-proxy.ts'
import {
  doneTurn,
  type FakeOpenAI,
  navigateTurn,
  promptText,
  startFakeOpenAI,
} from '../support/models/fake-openai.ts'
import { type PageServer, startPageServer } from '../support/page-server.ts'
import { events, type Harness, postRun, readSse, startHarness } from './support.ts'

// A run's traffic leaves through the caller's proxy, with the run's own network guard still in front:
// the proxy sees the run's requests with their credentials, never a host outside allowedDomains, and the
// credentials reach nothing else the run writes.

const credentials = { username: 'proxy-user-7f3', password: 'Pr0xy pass/wörd!' }

let fake: FakeOpenAI
let harness: Harness
let site: PageServer
let proxy: ForwardProxy

beforeAll(async () => {
  fake = await startFakeOpenAI({
    fallback: (request) => {
      const text = promptText(request)
      if (text.includes('blocked: domain not in allowedDomains'))
        return doneTurn('The outside host was refused.')
      if (text.includes('Through the proxy')) return navigateTurn('http://outside.example/steal')
      return doneTurn('Nothing to do.', false)
    },
  })
  site = await startPageServer({
    pages: { '/start': '<!doctype html><title>Start</title><h1>Through the proxy</h1>' },
  })
  proxy = await startForwardProxy(credentials)
  harness = await startHarness({ fake, browser: 'chromium' })
})

afterAll(async () => {
  await harness?.close()
  await proxy?.close()
  await site?.close()
  await fake?.close()
})

describe('a proxy per run', () => {
  test("the run's pages come through the proxy with its credentials; a host outside allowedDomains never reaches it", async () => {
    const response = await postRun(harness.url, {
      task: 'Open the start page.',
      startUrl: `${site.url}/start`,
      allowedDomains: ['127.0.0.1'],
      proxy: { server: proxy.url, ...credentials },
    })
    expect(response.status).toBe(200)
    const raw = await response.text()
    const list = raw
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as AgentEvent)
    expect(list.at(-1)).toMatchObject({ type: 'done', reason: 'model_stop', result: { success: true } })

    const start = proxy.seen.find((seen) => seen.request.includes(`${new URL(site.url).host}/start`))
    expect(start, JSON.stringify(proxy.seen)).toBeDefined()
    expect(start?.credentials).toBe(`${credentials.username}:${credentials.password}`)
    expect(proxy.seen.some((seen) => seen.request.includes('outside.example'))).toBe(false)

    // The credentials are nowhere the run writes.
    const id = list[0]?.runId ?? ''
    const written = [
      raw,
      await (await fetch(`${harness.url}/v1/runs/${id}`)).text(),
      await (await fetch(`${harness.url}/v1/runs`)).text(),
      JSON.stringify(harness.logs),
      JSON.stringify(fake.requests),
    ].join('\n')
    expect(written).not.toContain(credentials.password)
    expect(written).not.toContain(encodeURIComponent(credentials.password))
    expect(written).not.toContain(credentials.username)
  })

  test("a proxy at the server's own address is refused, and the run says why", async () => {
    const response = await postRun(harness.url, {
      task: 'Open the start page.',
      startUrl: `${site.url}/start`,
      proxy: { server: harness.url },
    })
    const done = events(await readSse(response)).at(-1)
    expect(done).toMatchObject({ type: 'done', reason: 'error' })
    expect(JSON.stringify(done)).toContain("the Sextant server's own address")
  })

  test.each(['[::ffff:7f00:1]', '[::ffff:127.0.0.1]', '[64:ff9b::7f00:1]', '0x7f.1', '2130706433'])(
    "a proxy at the server's own address spelled %s is refused too",
    async (host) => {
      const response = await postRun(harness.url, {
        task: 'Open the start page.',
        startUrl: `${site.url}/start`,
        proxy: { server: `http://${host}:${new URL(harness.url).port}` },
      })
      const done = events(await readSse(response)).at(-1)
      expect(done).toMatchObject({ type: 'done', reason: 'error' })
      expect(JSON.stringify(done)).toContain("the Sextant server's own address")
    },
  )

  test('a proxy at the metadata service, in any spelling, is refused', async () => {
    for (const host of ['[::ffff:a9fe:a9fe]', '[64:ff9b::a9fe:a9fe]', '2852039166']) {
      const response = await postRun(harness.url, {
        task: 'Open the start page.',
        startUrl: `${site.url}/start`,
        proxy: { server: `http://${host}:80` },
      })
      const done = events(await readSse(response)).at(-1)
      expect(JSON.stringify(done), host).toContain('cloud metadata')
    }
  })

  test('a proxy that is not an http:// address is a 400 naming the field', async () => {
    const response = await postRun(harness.url, { task: 'x', proxy: { server: 'socks5://127.0.0.1:1080' } })
    expect(response.status).toBe(400)
    expect(await response.text()).toMatch(/proxy/)
  })
})
