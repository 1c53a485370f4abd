import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { doneTurn, type FakeOpenAI, startFakeOpenAI } from '../support/models/fake-openai.ts'
import { type PageServer, startPageServer } from '../support/page-server.ts'
import { type Harness, json, postRun, readSse, runIdOf, startHarness } from './support.ts'

const sessionValue = `tok-${randomBytes(8).toString('hex')}`
const profileKey = randomBytes(32).toString('hex')
const seenCookies: string[] = []
let fake: FakeOpenAI
let site: PageServer

beforeAll(async () => {
  fake = await startFakeOpenAI()
  site = await startPageServer({
    routes: {
      '/': (request, response) => {
        seenCookies.push(request.headers.cookie ?? '')
        response.writeHead(200, { 'content-type': 'text/html' })
        response.end('<!doctype html><title>Home</title><h1>Welcome</h1>')
      },
    },
  })
})
afterAll(async () => {
  await site.close()
  await fake.close()
})

const storageState = {
  cookies: [{ name: 'session', value: sessionValue, domain: '127.0.0.1', path: '/', httpOnly: true }],
  origins: [],
}

function putProfile(url: string, name: string, body: unknown): Promise<Response> {
  return fetch(`${url}/v1/profiles/${name}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
}

describe('/v1/profiles with a real browser', () => {
  let harness: Harness
  beforeAll(async () => {
    harness = await startHarness({ fake, browser: 'chromium', config: { profileKey } })
  })
  afterAll(() => harness.close())

  test('an imported profile is listed without values, a run starts from it and saves back, delete removes it', async () => {
    const put = await putProfile(harness.url, 'p', storageState)
    expect(put.status).toBe(200)
    const putText = await put.text()
    expect(JSON.parse(putText)).toMatchObject({ name: 'p', domains: ['127.0.0.1'] })
    expect(putText).not.toContain(sessionValue)

    fake.enqueue(doneTurn('Signed in already.'))
    const response = await postRun(harness.url, { task: 'Look', startUrl: `${site.url}/`, profile: 'p' })
    const runId = runIdOf(response)
    const frames = await readSse(response)
    expect(frames.at(-1)?.event).toBe('done')
    expect(seenCookies[0]).toContain(`session=${sessionValue}`)
    expect(JSON.stringify(frames)).not.toContain(sessionValue)

    const listed = await fetch(`${harness.url}/v1/profiles`)
    const listText = await listed.text()
    expect(JSON.parse(listText)).toMatchObject({ profiles: [{ name: 'p', lastRunId: runId }] })
    expect(listText).not.toContain(sessionValue)
    expect(JSON.stringify(harness.logs)).not.toContain(sessionValue)

    expect((await fetch(`${harness.url}/v1/profiles/p/export`)).status).toBe(403)
    expect((await fetch(`${harness.url}/v1/profiles/p`, { method: 'DELETE' })).status).toBe(204)
    expect((await fetch(`${harness.url}/v1/profiles/p`, { method: 'DELETE' })).status).toBe(404)
    expect(await json(await fetch(`${harness.url}/v1/profiles`))).toEqual({ profiles: [] })
  })

  test('a bad name or body is a 400 that says why', async () => {
    const badName = await putProfile(harness.url, '.hidden', storageState)
    expect(badName.status).toBe(400)
    const badBody = await putProfile(harness.url, 'q', { cookies: [{ name: 'x' }] })
    expect(badBody.status).toBe(400)
    const badRun = await postRun(harness.url, { task: 'x', profile: '../p' })
    expect(badRun.status).toBe(400)
    expect(await badRun.text()).toMatch(/profile/)
  })
})

test('export answers the values only when SEXTANT_PROFILE_EXPORT is on', async () => {
  const harness = await startHarness({ fake, browser: null, config: { profileKey, profileExport: true } })
  try {
    expect((await putProfile(harness.url, 'p', storageState)).status).toBe(200)
    const exported = await json<{ cookies: { value: string }[] }>(
      await fetch(`${harness.url}/v1/profiles/p/export`),
    )
    expect(exported.cookies[0]?.value).toBe(sessionValue)
  } finally {
    await harness.close()
  }
})
