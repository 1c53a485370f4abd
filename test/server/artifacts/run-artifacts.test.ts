import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { unzipSync } from 'fflate'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import {
  actionTurn,
  doneTurn,
  type FakeOpenAI,
  type FakeRequest,
  type FakeTurn,
  promptText,
  refInView,
  startFakeOpenAI,
} from '../../support/models/fake-openai.ts'
import { type Harness, json, postRun, readSse, runIdOf, startHarness } from '../support.ts'
import { startViewer } from '../viewer/support.ts'
import { ensurePlaywrightFfmpeg } from './video-encoder.ts'

// A run's artifacts through the API: real Chromium records a Playwright trace, a video and a HAR of a
// page that sends what is typed to its server (which echoes it back as bytes); GET …/artifacts serves
// them, and a secret typed during a traced run is in none of their bytes, in any encoding.

const secret = 'Tok3n s3cret/+xyz!'

const page = `<!doctype html><title>Account</title>
<main><label>Token <input id="token" type="text"></label>
<button id="save">Save</button><p id="out"></p></main>
<script>
document.getElementById('save').addEventListener('click', async () => {
  const value = document.getElementById('token').value
  await fetch('/echo?token=' + encodeURIComponent(value), {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: value }),
  })
  const echoed = await fetch('/echo-bytes', { method: 'POST', body: new URLSearchParams({ token: value }) })
  document.getElementById('out').textContent = 'Saved ' + (await echoed.arrayBuffer()).byteLength + ' bytes'
})
</script>`

let fake: FakeOpenAI
let harness: Harness
let site: Server
let siteUrl: string

/** Types the token (a secret's placeholder, or plain text), saves, and stops once the page says it saved. */
function typeSaveStop(request: FakeRequest): FakeTurn {
  const prompt = promptText(request)
  if (prompt.includes('Saved ')) return doneTurn('Saved.')
  if (prompt.includes('Typed ')) return actionTurn('click', { ref: refInView(request, 'button "Save"') })
  const text = prompt.includes('<secret>token</secret>') ? '<secret>token</secret>' : 'plain words'
  return actionTurn('type', { ref: refInView(request, 'textbox "Token"'), text })
}

beforeAll(async () => {
  ensurePlaywrightFfmpeg()
  fake = await startFakeOpenAI({ fallback: typeSaveStop })
  site = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      if (request.url?.startsWith('/echo')) {
        // Bytes of no text type: the HAR embeds them in base64.
        response.writeHead(200, { 'content-type': 'application/octet-stream' })
        response.end(Buffer.concat(chunks))
        return
      }
      response.writeHead(200, { 'content-type': 'text/html' })
      response.end(page)
    })
  })
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve))
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`
  harness = await startHarness({ fake, browser: 'chromium' })
})
afterAll(async () => {
  await harness?.close()
  site?.close()
  fake?.close()
})

async function runToEnd(body: Record<string, unknown>): Promise<string> {
  const response = await postRun(harness.url, { startUrl: `${siteUrl}/account`, maxTurns: 6, ...body })
  expect(response.status).toBe(200)
  const id = runIdOf(response)
  await readSse(response, () => false)
  return id
}

async function artifact(id: string, name: string): Promise<Uint8Array> {
  const response = await fetch(`${harness.url}/v1/runs/${id}/artifacts/${name}`)
  expect(response.status, name).toBe(200)
  return new Uint8Array(await response.arrayBuffer())
}

/** The trace's events (trace.trace, one JSON object a line). */
function traceEvents(entries: Record<string, Uint8Array>): Record<string, unknown>[] {
  const text = new TextDecoder().decode(entries['trace.trace'])
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>)
}

describe('a run with artifacts', () => {
  test('keeps a trace that names its steps, a video with frames and a HAR of its requests', async () => {
    const id = await runToEnd({ task: 'Save the token.', artifacts: { trace: true, video: true, har: true } })

    const list = await json<{ artifacts: { name: string; kind: string; bytes: number; url: string }[] }>(
      await fetch(`${harness.url}/v1/runs/${id}/artifacts`),
    )
    expect(list.artifacts.map(({ name, kind }) => ({ name, kind }))).toEqual(
      expect.arrayContaining([
        { name: 'trace.zip', kind: 'trace' },
        { name: 'video.webm', kind: 'video' },
        { name: 'network.har', kind: 'har' },
      ]),
    )

    // The trace opens as Playwright's trace viewer reads it: a zip of trace.trace, trace.network and resources.
    const zip = await artifact(id, 'trace.zip')
    const entries = unzipSync(zip)
    expect(Object.keys(entries)).toEqual(expect.arrayContaining(['trace.trace', 'trace.network']))
    const events = traceEvents(entries)
    const text = JSON.stringify(events)
    expect(text).toContain('step 1: type textbox \\"Token\\"')
    expect(text).toContain('step 2: click button \\"Save\\"')
    expect(events.some((event) => event.type === 'frame-snapshot')).toBe(true)
    expect(events.some((event) => event.type === 'screencast-frame')).toBe(true)

    // A WebM (its EBML header) of more than a few frames.
    const video = await artifact(id, 'video.webm')
    expect([...video.slice(0, 4)]).toEqual([0x1a, 0x45, 0xdf, 0xa3])
    // A Cluster element (its ID 1F 43 B6 75) holds frames: a WebM without frames has none.
    expect(Buffer.from(video).includes(Buffer.from([0x1f, 0x43, 0xb6, 0x75]))).toBe(true)
    expect(video.byteLength).toBeGreaterThan(2_000)

    const har = JSON.parse(new TextDecoder().decode(await artifact(id, 'network.har'))) as {
      log: { entries: { request: { url: string; method: string } }[] }
    }
    const requests = har.log.entries.map(
      (entry) => `${entry.request.method} ${new URL(entry.request.url).pathname}`,
    )
    expect(requests).toEqual(expect.arrayContaining(['GET /account', 'POST /echo', 'POST /echo-bytes']))

    const refused = await fetch(`${harness.url}/v1/runs/${id}/artifacts/..%2Fsteps%2F1.jpg`)
    expect(refused.status).toBe(404)
  })

  test('keeps a secret typed during a traced run out of every byte of its trace and HAR', async () => {
    const id = await runToEnd({
      task: 'Save the token <secret>token</secret>.',
      secrets: { token: secret },
      artifacts: { trace: true, har: true },
    })
    const forms = [
      secret,
      encodeURIComponent(secret),
      new URLSearchParams({ v: secret }).toString().slice(2),
      JSON.stringify(secret).slice(1, -1),
      Buffer.from(secret).toString('base64'),
      Buffer.from(JSON.stringify({ token: secret }))
        .toString('base64')
        .slice(0, 24),
    ]
    const entries = unzipSync(await artifact(id, 'trace.zip'))
    const traceText = JSON.stringify(traceEvents(entries))
    // What was typed went to the page and back: the trace knows the step, and the request.
    expect(traceText).toContain('step 1: type textbox \\"Token\\"')
    expect(traceText).toContain('<secret>token</secret>')
    // No screenshot: a picture of the field cannot be scrubbed.
    expect(traceEvents(entries).some((event) => event.type === 'screencast-frame')).toBe(false)
    const har = await artifact(id, 'network.har')
    const harText = new TextDecoder().decode(har)
    expect(harText).toContain('/echo-bytes')
    const bodies = [
      ...harText.matchAll(
        /"text":"([A-Za-z0-9+/=]+)","encoding":"base64"|"encoding":"base64"[^}]*?"text":"([A-Za-z0-9+/=]+)"/g,
      ),
    ].map((match) => Buffer.from(match[1] ?? match[2] ?? '', 'base64').toString('latin1'))
    expect(bodies.length).toBeGreaterThan(0)

    const files: [string, string][] = [
      ...Object.entries(entries).map(([name, data]): [string, string] => [
        name,
        Buffer.from(data).toString('latin1'),
      ]),
      ['network.har', Buffer.from(har).toString('latin1')],
      ...bodies.map((body, index): [string, string] => [`har body ${index}`, body]),
    ]
    for (const [name, content] of files)
      for (const form of forms) expect(content.includes(form), `${name} holds ${form}`).toBe(false)
  })

  test('the run viewer lists them with the run’s files, and saves one', async () => {
    const id = await runToEnd({ task: 'Save the token.', artifacts: { har: true } })
    const viewer = await startViewer()
    try {
      const { page, problems } = await viewer.open()
      await page.goto(`${harness.url}/runs/${id}`)
      const har = page.locator('#downloads button', { hasText: 'network.har' })
      await har.waitFor()
      expect(await har.getAttribute('title')).toContain('HAR')
      const [download] = await Promise.all([page.waitForEvent('download'), har.click()])
      expect(download.suggestedFilename()).toBe(`${id}-network.har`)
      expect(problems).toEqual([])
    } finally {
      await viewer.close()
    }
  })

  test('keeps none over SEXTANT_MAX_ARTIFACT_BYTES, and says so in a warning', async () => {
    const small = await startHarness({ fake, browser: 'chromium', config: { maxArtifactBytes: 200 } })
    try {
      const response = await postRun(small.url, {
        task: 'Save the token.',
        startUrl: `${siteUrl}/account`,
        maxTurns: 6,
        artifacts: { har: true },
      })
      const id = runIdOf(response)
      const messages = await readSse(response, () => false)
      const warnings = messages.filter((message) => message.event === 'warning').map(({ data }) => data)
      expect(warnings).toContainEqual(
        expect.objectContaining({
          code: 'artifact_not_kept',
          message: expect.stringMatching(
            /^The run's network\.har \([\d.]+ KB\) is over the bound of 200 bytes an artifact may take \(SEXTANT_MAX_ARTIFACT_BYTES\) and was not kept\.$/,
          ),
        }),
      )
      const list = await json<{ artifacts: unknown[] }>(await fetch(`${small.url}/v1/runs/${id}/artifacts`))
      expect(list.artifacts).toEqual([])
    } finally {
      await small.close()
    }
  })

  test('refuses a video of a run with secrets, saying why, before it starts', async () => {
    const response = await postRun(harness.url, {
      task: 'Save the token.',
      startUrl: `${siteUrl}/account`,
      secrets: { token: secret },
      artifacts: { video: true },
    })
    expect(response.status).toBe(400)
    expect(((await json(response)) as { error: { message: string } }).error.message).toContain(
      'artifacts.video cannot be recorded for a run with secrets',
    )
  })
})
