import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, expect, test } from 'vitest'
import type { AgentEventOf } from '../../src/events/events.ts'
import { jpegSize } from '../support/jpeg.ts'
import { jpegRegion, meanDifference } from '../support/jpeg-pixels.ts'
import {
  actionTurn,
  doneTurn,
  type FakeOpenAI,
  type FakeRequest,
  type FakeTurn,
  navigateTurn,
  promptText,
  refInView,
  startFakeOpenAI,
} from '../support/models/fake-openai.ts'
import { type PageServer, startPageServer } from '../support/page-server.ts'
import { borrowBrowser } from '../support/suite/shared-browser.ts'
import { events, type Harness, postRun, readSse, runIdOf, startHarness, startTestPage } from './support.ts'

// Step screenshots and vision, end to end: real Chromium, the real server, the real OpenAI provider.

let fake: FakeOpenAI
let harness: Harness
let page: Awaited<ReturnType<typeof startTestPage>>
let accountSite: PageServer
let decoder: Browser
let decoderPage: Page

/** Where the account field's text is drawn, in CSS pixels (the pictures are 1280 px wide, unscaled). */
const accountText = { x: 24, y: 24, width: 412, height: 36 }
const accountPage = `<!doctype html><meta charset="utf-8"><title>Account</title><body style="margin:0;background:#fff">
<input aria-label="Account number" style="position:absolute;left:20px;top:20px;width:420px;height:44px;box-sizing:border-box;font:28px monospace;color:#000;border:1px solid #000;padding:0 6px">
</body>`

/** The model of the account runs: types the number the task names, or the secret, then stops. */
function typeAccount(request: FakeRequest): FakeTurn {
  const text = promptText(request)
  if (text.includes('Typed ')) return doneTurn('Typed it.')
  const plain = /Type (\S+) as the account number/.exec(text)?.[1]
  return actionTurn('type', {
    ref: refInView(request, 'textbox "Account number"'),
    text: plain ?? '<secret>acct</secret>',
  })
}

beforeAll(async () => {
  fake = await startFakeOpenAI({ fallback: typeAccount })
  page = await startTestPage()
  accountSite = await startPageServer({ pages: { '/': accountPage } })
  harness = await startHarness({ fake, browser: 'chromium' })
  decoder = await borrowBrowser()
  decoderPage = await decoder.newPage()
})
afterAll(async () => {
  await harness?.close()
  await decoder?.close()
  await accountSite?.close()
  await page?.close()
  await fake?.close()
})

async function run(body: Record<string, unknown>) {
  const response = await postRun(harness.url, { task: 'Look at the test page.', ...body })
  const list = events(await readSse(response))
  return { id: runIdOf(response), list }
}

/** The JPEGs a chat request carried, as the OpenAI provider sends them (`image_url` data URLs). */
function imagesIn(request: FakeRequest): Uint8Array[] {
  const images: Uint8Array[] = []
  for (const message of request.body.messages) {
    if (!Array.isArray(message.content)) continue
    for (const part of message.content as { type: string; image_url?: { url: string } }[]) {
      const url = part.type === 'image_url' ? part.image_url?.url : undefined
      const match = url ? /^data:image\/jpeg;base64,(.+)$/.exec(url) : null
      if (match) images.push(Buffer.from(match[1]!, 'base64'))
    }
  }
  return images
}

test('every step keeps a viewport JPEG in the run folder, named by URL in its observation and served by the API', async () => {
  fake.enqueue(navigateTurn(page.url), doneTurn('Seen.'))
  const { id, list } = await run({})
  const observations = list.filter((e): e is AgentEventOf<'observation'> => e.type === 'observation')
  expect(observations.map((o) => o.screenshot)).toEqual([
    `/v1/runs/${id}/steps/1/screenshot`,
    `/v1/runs/${id}/steps/2/screenshot`,
  ])
  // The picture is a file, never a blob in the event stream.
  expect(Math.max(...list.map((event) => JSON.stringify(event).length))).toBeLessThan(5000)
  const file = join(harness.runsDir, id, 'steps', '2.jpg')
  expect(existsSync(file)).toBe(true)

  const response = await fetch(`${harness.url}${observations[1]!.screenshot}`)
  expect(response.status).toBe(200)
  expect(response.headers.get('content-type')).toBe('image/jpeg')
  const served = new Uint8Array(await response.arrayBuffer())
  expect(Buffer.from(served).equals(readFileSync(file))).toBe(true)
  expect(jpegSize(served)).toEqual({ width: 1280, height: 800 })

  expect((await fetch(`${harness.url}/v1/runs/${id}/steps/3/screenshot`)).status).toBe(404)
  expect((await fetch(`${harness.url}/v1/runs/${id}/steps/0/screenshot`)).status).toBe(400)
  expect((await fetch(`${harness.url}/v1/runs/run_nope/steps/1/screenshot`)).status).toBe(404)
})

test('vision: each step sends one image of the viewport, about 1280 px wide; none without vision', async () => {
  fake.enqueue(navigateTurn(page.url), doneTurn('Seen.'))
  const before = fake.requests.length
  await run({ vision: true })
  const withVision = fake.requests.slice(before)
  expect(withVision).toHaveLength(2)
  for (const request of withVision) {
    const images = imagesIn(request)
    expect(images).toHaveLength(1)
    expect(jpegSize(images[0]!)).toEqual({ width: 1280, height: 800 })
    expect(JSON.stringify(request.body.messages)).toContain('## The screenshot')
  }

  fake.enqueue(navigateTurn(page.url), doneTurn('Seen.'))
  const middle = fake.requests.length
  await run({ vision: false })
  const withoutVision = fake.requests.slice(middle)
  expect(withoutVision).toHaveLength(2)
  for (const request of withoutVision) {
    expect(imagesIn(request)).toHaveLength(0)
    expect(JSON.stringify(request.body.messages)).not.toContain('## The screenshot')
  }
})

test('vision with labels: the system prompt says what the marks mean, and the kept screenshot has none', async () => {
  fake.enqueue(navigateTurn(page.url), doneTurn('Seen.'))
  const before = fake.requests.length
  const { id } = await run({ vision: { labels: true } })
  const requests = fake.requests.slice(before)
  expect(requests).toHaveLength(2)
  for (const request of requests) {
    expect(imagesIn(request)).toHaveLength(1)
    expect(JSON.stringify(request.body.messages)).toContain('outlined in magenta')
  }
  // The model's copy is labelled; the one people see is not.
  const kept = readFileSync(join(harness.runsDir, id, 'steps', '2.jpg'))
  expect(Buffer.from(imagesIn(requests[1]!)[0]!).equals(kept)).toBe(false)
})

test('a model that refuses images ends the run at the first step with a clear error', async () => {
  fake.enqueue({ status: 400, text: 'Invalid content type. image_url is only supported by certain models.' })
  const before = fake.requests.length
  const { list } = await run({ vision: true, startUrl: page.url })
  expect(fake.requests.length - before).toBe(1)
  const done = list.at(-1)
  expect(done).toMatchObject({ type: 'done', reason: 'error', steps: 1 })
  expect(done?.type === 'done' && done.result.text).toMatch(/refused the step's screenshot.*turn vision off/s)
})

/** The account field's pixels in the kept picture and the vision image of step 2 (after typing). */
async function accountPictures(body: Record<string, unknown>): Promise<{ kept: number[]; vision: number[] }> {
  const before = fake.requests.length
  const { id, list } = await run({ startUrl: `${accountSite.url}/`, vision: true, ...body })
  expect(list.at(-1)).toMatchObject({ type: 'done', reason: 'model_stop' })
  const requests = fake.requests.slice(before)
  expect(requests).toHaveLength(2)
  const vision = imagesIn(requests[1]!)[0]!
  const kept = readFileSync(join(harness.runsDir, id, 'steps', '2.jpg'))
  return {
    kept: await jpegRegion(decoderPage, kept, accountText),
    vision: await jpegRegion(decoderPage, vision, accountText),
  }
}

test('a secret typed into an ordinary field is blank in the kept screenshot and the vision image', async () => {
  // Typed as plain text, two values look different there: the comparison sees text.
  const plainA = await accountPictures({ task: 'Type 4711-0815-AAAA as the account number.' })
  const plainB = await accountPictures({ task: 'Type 9932-7781-ZZZZ as the account number.' })
  expect(meanDifference(plainA.kept, plainB.kept)).toBeGreaterThan(5)
  expect(meanDifference(plainA.vision, plainB.vision)).toBeGreaterThan(5)

  const task = 'Type the account number.'
  const secretA = await accountPictures({ task, secrets: { acct: '4711-0815-AAAA' } })
  const secretB = await accountPictures({ task, secrets: { acct: '9932-7781-ZZZZ' } })
  expect(meanDifference(secretA.kept, secretB.kept)).toBeLessThan(1.5)
  expect(meanDifference(secretA.vision, secretB.vision)).toBeLessThan(1.5)
})
