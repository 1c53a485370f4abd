import { HTTPException } from 'hono/http-exception'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { runRequestFields } from '../../../src/agent/run/run-request-fields.ts'
import { eventTypes } from '../../../src/events/events.ts'
import { silentLogger } from '../../../src/log.ts'
import { createApp } from '../../../src/server/app.ts'
import { doneTurn, type FakeOpenAI, startFakeOpenAI } from '../../support/models/fake-openai.ts'
import { type Harness, json, postRun, readSse, runIdOf, startHarness } from '../support.ts'

let fake: FakeOpenAI
beforeAll(async () => {
  fake = await startFakeOpenAI({ fallback: () => doneTurn('Nothing to do.') })
})
afterAll(() => fake.close())

interface ErrorBody {
  error: { code: string; message: string }
}

describe('requests the server refuses', () => {
  let harness: Harness
  beforeAll(async () => {
    harness = await startHarness({ fake })
  })
  afterAll(() => harness.close())

  test.each([
    ['no task', {}, /task/],
    ['an empty task', { task: '   ' }, /task[\s\S]*must not be empty/],
    ['an unknown field', { task: 'x', url: 'https://example.com' }, /Unrecognized key[\s\S]*url/],
    [
      'a start URL that is not http(s)',
      { task: 'x', startUrl: 'file:///etc/passwd' },
      /startUrl[\s\S]*http\(s\)/,
    ],
    ['maxTurns of 0', { task: 'x', maxTurns: 0 }, /maxTurns/],
    ['maxTurns as a string', { task: 'x', maxTurns: '5' }, /maxTurns[\s\S]*number/],
    [
      'allowedDomains as a string',
      { task: 'x', allowedDomains: 'example.com' },
      /allowedDomains[\s\S]*array/,
    ],
    ['a JSON array', [1, 2], /object/],
    ['JSON null', null, /object/],
  ])('400 for %s, with zod’s message', async (_name, body, message) => {
    const response = await postRun(harness.url, body)
    expect(response.status).toBe(400)
    const { error } = await json<ErrorBody>(response)
    expect(error.code).toBe('invalid_request')
    expect(error.message).toMatch(message)
  })

  test('400 for a body that is not JSON', async () => {
    const response = await fetch(`${harness.url}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"task": "x",',
    })
    expect(response.status).toBe(400)
    expect((await json<ErrorBody>(response)).error.message).toMatch(/not valid JSON/)
  })

  test('415 for a body that is not declared JSON', async () => {
    for (const headers of [{ 'content-type': 'text/plain' }, {}] as Record<string, string>[]) {
      const response = await fetch(`${harness.url}/v1/runs`, {
        method: 'POST',
        headers,
        body: '{"task":"x"}',
      })
      expect(response.status).toBe(415)
      const { error } = await json<ErrorBody>(response)
      expect(error).toMatchObject({ code: 'unsupported_media_type' })
      expect(error.message).toMatch(/application\/json/)
    }
  })

  test('413 for a run request over 2 MiB (room for a recording to replay), declared or streamed', async () => {
    const big = JSON.stringify({ task: 'x'.repeat(2 * 1024 * 1024 + 1024) })
    const declared = await fetch(`${harness.url}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: big,
    })
    expect(declared.status).toBe(413)
    expect((await json<ErrorBody>(declared)).error.code).toBe('payload_too_large')

    const bytes = new TextEncoder().encode(big)
    const streamed = await fetch(`${harness.url}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new ReadableStream({
        start(controller) {
          for (let offset = 0; offset < bytes.length; offset += 8192)
            controller.enqueue(bytes.slice(offset, offset + 8192))
          controller.close()
        },
      }),
      duplex: 'half',
    } as RequestInit)
    expect(streamed.status).toBe(413)
    expect((await json<ErrorBody>(streamed)).error.code).toBe('payload_too_large')
  })

  test('a 413 raised by the framework is payload_too_large too, not invalid_request', async () => {
    const app = createApp({ manager: harness.server.manager, log: silentLogger(), version: '0.0.0' })
    app.post('/limited', () => {
      throw new HTTPException(413, { message: 'Too big.' })
    })
    const response = await app.request('/limited', { method: 'POST' })
    expect(response.status).toBe(413)
    expect(await json<ErrorBody>(response)).toEqual({
      error: { code: 'payload_too_large', message: 'Too big.' },
    })
  })

  test('404 for an unknown run on every run route, and for an unknown route', async () => {
    const id = 'run_doesnotexist'
    const requests: [string, string, unknown?][] = [
      ['GET', `/v1/runs/${id}`],
      ['GET', `/v1/runs/${id}/events`],
      ['DELETE', `/v1/runs/${id}`],
      ['POST', `/v1/runs/${id}/confirmations/call_1`, { approve: true }],
      ['POST', `/v1/runs/${id}/answers/q_1`, { answer: 'yes' }],
      ['GET', '/v2/nothing'],
    ]
    for (const [method, path, body] of requests) {
      const response = await fetch(`${harness.url}${path}`, {
        method,
        ...(body === undefined
          ? {}
          : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      })
      expect(response.status, `${method} ${path}`).toBe(404)
      expect((await json<ErrorBody>(response)).error.code).toBe('not_found')
    }
  })

  test('409 for a confirmation or answer nobody waits for', async () => {
    const response = await postRun(harness.url, { task: 'Finish at once.' })
    const id = runIdOf(response)
    await readSse(response)
    const confirm = await fetch(`${harness.url}/v1/runs/${id}/confirmations/call_x`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ approve: true }),
    })
    expect(confirm.status).toBe(409)
    expect((await json<ErrorBody>(confirm)).error).toMatchObject({ code: 'not_pending' })
    const answer = await fetch(`${harness.url}/v1/runs/${id}/answers/q_x`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ answer: 'x' }),
    })
    expect(answer.status).toBe(409)
  })

  test('400 for a bad Last-Event-ID or page query', async () => {
    const response = await postRun(harness.url, { task: 'Finish at once.' })
    const id = runIdOf(response)
    await readSse(response)
    const badId = await fetch(`${harness.url}/v1/runs/${id}/events`, { headers: { 'last-event-id': 'abc' } })
    expect(badId.status).toBe(400)
    expect((await json<ErrorBody>(badId)).error.message).toMatch(/Last-Event-ID/)
    for (const query of ['limit=0', 'limit=abc', 'limit=1000', 'cursor=garbage']) {
      const page = await fetch(`${harness.url}/v1/runs?${query}`)
      expect(page.status, query).toBe(400)
    }
  })

  test('no input crashes the server', async () => {
    const bodies = [
      '',
      '\u0000\u0001\u0002',
      '{"task":',
      '"just a string"',
      '{"task":{"nested":1}}',
      '[]',
      'x'.repeat(10),
    ]
    for (const body of bodies) {
      const response = await fetch(`${harness.url}/v1/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      })
      expect(response.status).toBeGreaterThanOrEqual(400)
      expect(response.status).toBeLessThan(500)
    }
    for (const path of ['/v1/runs/%ZZ', '/v1/runs/..%2F..%2Fetc', '/v1/runs/a/b/c/d', '/%00']) {
      const response = await fetch(`${harness.url}${path}`)
      expect(response.status, path).toBeLessThan(500)
    }
    const wrongMethod = await fetch(`${harness.url}/v1/runs`, { method: 'PUT' })
    expect(wrongMethod.status).toBe(404)
    expect((await fetch(`${harness.url}/healthz`)).status).toBe(200)
  })
})

describe('model configuration errors are 400s, before any run starts', () => {
  let harness: Harness
  beforeAll(async () => {
    harness = await startHarness({
      fake,
      config: { baseUrl: undefined, model: undefined, apiKey: undefined },
    })
  })
  afterAll(() => harness.close())

  test.each([
    [undefined, /No model configured[\s\S]*SEXTANT_MODEL/],
    ['mistral/large-x', /Unknown model provider "mistral"/],
    ['openai/gpt-4.1-mini', /needs an API key[\s\S]*SEXTANT_API_KEY/],
    ['no-slash', /provider\/model/],
  ])('model %s', async (model, message) => {
    const response = await postRun(harness.url, { task: 'x', ...(model ? { model } : {}) })
    expect(response.status).toBe(400)
    const { error } = await json<ErrorBody>(response)
    expect(error.code).toBe('invalid_model')
    expect(error.message).toMatch(message)
    expect((await harness.store.listRuns()).runs).toEqual([])
  })
})

describe('with SEXTANT_API_TOKEN', () => {
  const token = 'a-long-enough-secret-token'
  let harness: Harness
  beforeAll(async () => {
    harness = await startHarness({ fake, config: { apiToken: token } })
  })
  afterAll(() => harness.close())

  test('every /v1 route needs the bearer token', async () => {
    const missing = await fetch(`${harness.url}/v1/runs`)
    expect(missing.status).toBe(401)
    expect(missing.headers.get('www-authenticate')).toMatch(/Bearer/)
    expect((await json<ErrorBody>(missing)).error.code).toBe('unauthorized')
    const wrong = await fetch(`${harness.url}/v1/runs`, { headers: { authorization: 'Bearer wrong' } })
    expect(wrong.status).toBe(401)
    const unauthorizedPost = await postRun(harness.url, { task: 'x' }, { authorization: `Basic ${token}` })
    expect(unauthorizedPost.status).toBe(401)
    const right = await fetch(`${harness.url}/v1/runs`, { headers: { authorization: `Bearer ${token}` } })
    expect(right.status).toBe(200)
  })

  test('health and the API description stay open', async () => {
    expect((await fetch(`${harness.url}/healthz`)).status).toBe(200)
    const openapi = await json<{ security: unknown }>(await fetch(`${harness.url}/openapi.json`))
    expect(openapi.security).toEqual([{ bearer: [] }])
  })

  test('the token never reaches the log', () => {
    expect(JSON.stringify(harness.logs)).not.toContain(token)
  })
})

test('the server refuses a non-loopback address without a token', async () => {
  await expect(startHarness({ fake, config: { host: '0.0.0.0' } })).rejects.toThrow(/SEXTANT_API_TOKEN/)
})

describe('meta routes', () => {
  let harness: Harness
  beforeAll(async () => {
    harness = await startHarness({ fake })
  })
  afterAll(() => harness.close())

  test('healthz answers with the version and live runs', async () => {
    const response = await fetch(`${harness.url}/healthz`)
    expect(await json(response)).toMatchObject({ ok: true, liveRuns: 0, version: expect.any(String) })
  })

  test('openapi.json describes every route, body and event', async () => {
    const document = await json<{
      openapi: string
      paths: Record<string, Record<string, unknown>>
      components: { schemas: Record<string, { properties?: Record<string, unknown>; oneOf?: unknown[] }> }
    }>(await fetch(`${harness.url}/openapi.json`))
    expect(document.openapi).toBe('3.1.0')
    expect(Object.keys(document.paths).sort()).toEqual([
      '/',
      '/favicon.ico',
      '/healthz',
      '/internal/runs/{id}/text',
      '/mcp',
      '/metrics',
      '/openapi.json',
      '/runs/{id}',
      '/v1/evals',
      '/v1/evals/{id}',
      '/v1/profiles',
      '/v1/profiles/{name}',
      '/v1/profiles/{name}/export',
      '/v1/runs',
      '/v1/runs/{id}',
      '/v1/runs/{id}/answers/{questionId}',
      '/v1/runs/{id}/artifacts',
      '/v1/runs/{id}/artifacts/{name}',
      '/v1/runs/{id}/confirmations/{callId}',
      '/v1/runs/{id}/downloads',
      '/v1/runs/{id}/downloads/{name}',
      '/v1/runs/{id}/events',
      '/v1/runs/{id}/input',
      '/v1/runs/{id}/live',
      '/v1/runs/{id}/recording',
      '/v1/runs/{id}/steps/{step}/page-view',
      '/v1/runs/{id}/steps/{step}/screenshot',
      '/v1/runs/{id}/takeover',
      '/viewer/viewer.css',
      '/viewer/viewer.js',
    ])
    expect(Object.keys(document.paths['/v1/runs']!).sort()).toEqual(['get', 'post'])
    expect(Object.keys(document.paths['/v1/runs/{id}']!).sort()).toEqual(['delete', 'get'])
    expect(Object.keys(document.paths['/v1/runs/{id}/takeover']!).sort()).toEqual(['delete', 'post'])
    const { schemas } = document.components
    // The body is the one run request schema (test/agent/run/run-request.test.ts holds the surfaces to it).
    expect(Object.keys(schemas.RunRequest!.properties!).sort()).toEqual(Object.keys(runRequestFields).sort())
    expect(schemas.Recording!.properties).toHaveProperty('steps')
    expect(schemas.AgentEvent!.oneOf).toHaveLength(eventTypes.length)
    expect(schemas.DoneEvent!.properties).toHaveProperty('reason')
    expect(schemas.ConfirmationBody!.properties).toHaveProperty('approve')
    expect(schemas.AnswerBody!.properties).toHaveProperty('answer')
  })
})
