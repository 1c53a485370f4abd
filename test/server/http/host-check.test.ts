import { request } from 'node:http'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { ownHostNames } from '../../../src/server/http/host-check.ts'
import { type FakeOpenAI, startFakeOpenAI } from '../../support/models/fake-openai.ts'
import { type Harness, startHarness } from '../support.ts'

/** GET with a Host header of our choosing, as a rebound DNS name would send it (fetch may not set Host). */
function getWithHost(url: string, path: string, host: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path, headers: { host } }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        body += chunk
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

describe('the Host header (DNS rebinding)', () => {
  let fake: FakeOpenAI
  let harness: Harness

  beforeAll(async () => {
    fake = await startFakeOpenAI()
    harness = await startHarness({ fake, browser: null })
  })
  afterAll(async () => {
    await harness.close()
    await fake.close()
  })

  test('a rebound name reaching the loopback server is refused before any route', async () => {
    const port = new URL(harness.url).port
    for (const path of ['/v1/runs', '/healthz', '/openapi.json']) {
      const answer = await getWithHost(harness.url, path, `attacker.example:${port}`)
      expect(answer.status, path).toBe(403)
      expect(JSON.parse(answer.body).error.code).toBe('host_not_allowed')
      expect(answer.body).toContain('attacker.example')
    }
  })

  test('the loopback names are answered, with or without a port', async () => {
    const port = new URL(harness.url).port
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      'localhost',
      `[::1]:${port}`,
      'LOCALHOST.',
    ]) {
      expect((await getWithHost(harness.url, '/v1/runs', host)).status, host).toBe(200)
    }
  })

  test('a name that merely ends like an allowed one is refused', async () => {
    expect((await getWithHost(harness.url, '/v1/runs', 'evil-localhost')).status).toBe(403)
    expect((await getWithHost(harness.url, '/v1/runs', 'localhost.attacker.example')).status).toBe(403)
  })
})

describe('the names a server answers to', () => {
  test('on loopback: loopback names only, plus SEXTANT_ALLOWED_HOSTS', () => {
    expect(ownHostNames('127.0.0.1').sort()).toEqual(['0.0.0.0', '127.0.0.1', '[::1]', '[::]', 'localhost'])
    expect(ownHostNames('127.0.0.1', ['*.corp.example'])).toContain('*.corp.example')
  })

  test('on every address: the machine addresses too', () => {
    const names = ownHostNames('0.0.0.0')
    expect(names).toContain('localhost')
    expect(names.length).toBeGreaterThan(3)
  })
})

describe('SEXTANT_ALLOWED_HOSTS behind a proxy', () => {
  let fake: FakeOpenAI
  let harness: Harness

  beforeAll(async () => {
    fake = await startFakeOpenAI()
    harness = await startHarness({ fake, browser: null, config: { allowedHosts: ['*.corp.example'] } })
  })
  afterAll(async () => {
    await harness.close()
    await fake.close()
  })

  test('a subdomain of a wildcard entry is answered, the bare domain and others are not', async () => {
    expect((await getWithHost(harness.url, '/v1/runs', 'sextant.corp.example')).status).toBe(200)
    expect((await getWithHost(harness.url, '/v1/runs', 'corp.example')).status).toBe(403)
    expect((await getWithHost(harness.url, '/v1/runs', 'sextant.other.example')).status).toBe(403)
  })
})
