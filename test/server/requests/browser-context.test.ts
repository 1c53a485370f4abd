import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { Recording } from '../../../src/recording/schema.ts'
import {
  doneTurn,
  type FakeOpenAI,
  promptText,
  scriptedTurns,
  startFakeOpenAI,
} from '../../support/models/fake-openai.ts'
import { type PageServer, startPageServer } from '../../support/page-server.ts'
import { type Harness, json, postRun, readSse, runIdOf, startHarness } from '../support.ts'

// A browser context set per run: what the page itself reads (its media queries, Intl, navigator, the
// headers it is sent) is what the run asked for; what would widen the run's reach is refused.

/** A page that writes what it sees of its browser into its own text, which the page view shows the model. */
const reportPage = `<!doctype html><meta name="viewport" content="width=device-width"><title>Context</title><p id="report"></p><script>
  const tz = Intl.DateTimeFormat().resolvedOptions().timeZone
  document.getElementById('report').textContent = [
    'width=' + innerWidth,
    'phone=' + matchMedia('(max-width: 500px) and (pointer: coarse)').matches,
    'tz=' + tz,
    'lang=' + navigator.language,
    'date=' + new Date(Date.UTC(2026, 0, 15, 12)).toLocaleDateString(),
    'dark=' + matchMedia('(prefers-color-scheme: dark)').matches,
    'init=' + (window.initMark ?? 'none'),
    'ua=' + navigator.userAgent,
  ].join(' | ')
</script>`

const turns = scriptedTurns()
const seenHeaders: Record<string, string | undefined>[] = []
let fake: FakeOpenAI
let site: PageServer
let harness: Harness
let insecure: Harness
let tls: { server: Server; url: string; dir: string }

beforeAll(async () => {
  fake = await startFakeOpenAI({ fallback: turns.fallback })
  site = await startPageServer({
    pages: { '/': reportPage },
    routes: {
      '/headers': (request, response) => {
        seenHeaders.push({ token: request.headers['x-api-token'] as string | undefined })
        response.writeHead(200, { 'content-type': 'text/html' })
        response.end('<title>Headers</title><p>Seen.</p>')
      },
    },
  })
  harness = await startHarness({ fake, browser: 'chromium' })
  insecure = await startHarness({ fake, browser: 'chromium', config: { allowInsecureTls: true } })
  tls = await selfSignedServer()
})
afterAll(async () => {
  await insecure?.close()
  await harness?.close()
  await site?.close()
  await fake?.close()
  tls?.server.close()
  if (tls) rmSync(tls.dir, { recursive: true, force: true })
})

/** The page view the model was shown for the task, as the first model request carried it. */
function viewOf(task: string): string {
  return promptText(
    fake.requests.find((request) => promptText(request).includes(task)) ??
      ({ body: { messages: [] } } as never),
  )
}

async function run(server: Harness, body: Record<string, unknown>) {
  const response = await postRun(server.url, body)
  expect(response.status).toBe(200)
  const runId = runIdOf(response)
  const events = (await readSse(response)).map((message) => message.data as Record<string, unknown>)
  return { runId, events }
}

describe('browser: the context a run asks for', () => {
  test('a device, a locale and a time zone are what the page reads; the user agent stays the browser’s own', async () => {
    const task = turns.script('Read the context report (phone, Berlin).', doneTurn('Read.'))
    await run(harness, {
      task,
      startUrl: `${site.url}/`,
      browser: { device: 'iPhone 15', locale: 'de-DE', timezoneId: 'Europe/Berlin', colorScheme: 'dark' },
    })
    const view = viewOf(task)
    expect(view).toContain('width=393')
    expect(view).toContain('phone=true')
    expect(view).toContain('tz=Europe/Berlin')
    expect(view).toContain('lang=de-DE')
    expect(view).toContain('date=15.1.2026')
    expect(view).toContain('dark=true')
    // The device's platform, in the browser's own user agent: Chrome, never the descriptor's Safari.
    expect(view).toMatch(
      /ua=Mozilla\/5\.0 \(iPhone; CPU iPhone OS [^)]*\) AppleWebKit\/537\.36 .*Chrome\/\d+.* Mobile Safari\/537\.36/,
    )
  })

  test('without one, the page sees the default desktop context', async () => {
    const task = turns.script('Read the context report (default).', doneTurn('Read.'))
    await run(harness, { task, startUrl: `${site.url}/` })
    const view = viewOf(task)
    expect(view).toContain('width=1280')
    expect(view).toContain('phone=false')
    expect(view).toContain('lang=en-US')
  })

  test('an init script runs as the page’s own code, before it', async () => {
    const task = turns.script('Read the context report (init script).', doneTurn('Read.'))
    await run(harness, {
      task,
      startUrl: `${site.url}/`,
      browser: { initScripts: ['window.initMark = "set-early"'] },
    })
    expect(viewOf(task)).toContain('init=set-early')
  })

  test('a header reaches the site; its value never reaches the events or the recording; the context is recorded', async () => {
    const token = `tok-${Math.random().toString(36).slice(2)}-secret`
    const task = turns.script('Open the headers page.', doneTurn('Seen.'))
    const { runId } = await run(harness, {
      task,
      startUrl: `${site.url}/headers`,
      browser: { locale: 'fr-FR', extraHTTPHeaders: { 'X-Api-Token': token } },
    })
    expect(seenHeaders.map((seen) => seen.token)).toContain(token)
    const stored = JSON.stringify(await harness.store.events(runId))
    expect(stored).not.toContain(token)
    expect(stored).toContain('"locale":"fr-FR"')
    const recording = await json<Recording>(await fetch(`${harness.url}/v1/runs/${runId}/recording`))
    expect(recording.browser).toEqual({ locale: 'fr-FR' })
  })

  test('headers that would steer a run past its bounds are refused, naming the field', async () => {
    for (const name of ['Host', 'Cookie', 'X-Forwarded-Host', 'Forwarded', 'Proxy-Authorization']) {
      const response = await postRun(harness.url, {
        task: 'Anything.',
        browser: { extraHTTPHeaders: { [name]: 'x' } },
      })
      expect(response.status, name).toBe(400)
      expect(JSON.stringify(await response.json())).toContain('extraHTTPHeaders')
    }
    const device = await postRun(harness.url, { task: 'Anything.', browser: { device: 'Nokia 3310' } })
    expect(device.status).toBe(400)
    expect(JSON.stringify(await device.json())).toContain("Playwright's device names")
    const zone = await postRun(harness.url, { task: 'Anything.', browser: { timezoneId: 'Mars/Olympus' } })
    expect(zone.status).toBe(400)
  })

  test('ignoreHTTPSErrors is refused unless the server allows it, and then reaches a self-signed site', async () => {
    const refused = await postRun(harness.url, {
      task: 'Open the staging site.',
      startUrl: tls.url,
      browser: { ignoreHTTPSErrors: true },
    })
    expect(refused.status).toBe(400)
    expect(JSON.stringify(await refused.json())).toContain('SEXTANT_ALLOW_INSECURE_TLS')
    // Nor through a recording written to carry it, or a forbidden header.
    for (const browser of [
      { ignoreHTTPSErrors: true },
      { extraHTTPHeaders: { Host: 'metadata.internal' } },
    ]) {
      const replay = await postRun(harness.url, {
        replay: { version: 1, task: 'Open it.', browser, steps: [] },
      })
      expect(replay.status, JSON.stringify(browser)).toBe(400)
    }

    const task = turns.script('Open the staging site (allowed).', doneTurn('Opened.'))
    await run(insecure, { task, startUrl: tls.url, browser: { ignoreHTTPSErrors: true } })
    expect(viewOf(task)).toContain('Staging works')

    // Without it, the same server's certificate stops the page.
    const strict = turns.script('Open the staging site (strict).', doneTurn('Could not.'))
    await run(insecure, { task: strict, startUrl: tls.url })
    expect(viewOf(strict)).not.toContain('Staging works')
  })
})

/** An HTTPS server on 127.0.0.1 with a certificate made now, signed by itself. */
async function selfSignedServer(): Promise<{ server: Server; url: string; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'sextant-tls-'))
  const key = join(dir, 'key.pem')
  const cert = join(dir, 'cert.pem')
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  )
  const server = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' })
    response.end('<title>Staging</title><p>Staging works.</p>')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/`, dir }
}
