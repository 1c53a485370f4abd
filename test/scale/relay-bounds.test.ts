import { readFileSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { runIdOf } from '../server/support.ts'
import { type FakeOpenAI, scriptedTurns, startFakeOpenAI } from '../support/models/fake-openai.ts'
import { createTestDatabase, hasPostgres } from '../support/postgres.ts'
import { until } from '../support/until.ts'
import { type ChildServer, startChildServer } from './cluster-support.ts'

// A body POSTed to a server that does not run the run is relayed to the one that does: it must
// be held to the route's own bound there too. Two servers in their own processes on one
// PostgreSQL; the owner is reached through a forwarder that counts what the relay sends it, and
// the relaying server's memory is sampled while a 64 MiB body is thrown at it.

const token = 'relay-bounds-test-token-0123456789'
const hugeBytes = 64 * 1024 * 1024
let fake: FakeOpenAI
let owner: ChildServer
let relaying: ChildServer
let forwarder: Server
/** What the relay sent the owner, as text: the request lines are what the test reads. */
let toOwner = ''
let bytesToOwner = 0
const sockets = new Set<Socket>()
let runId = ''

function residentBytes(server: ChildServer): number {
  const status = readFileSync(`/proc/${server.child.pid}/status`, 'utf8')
  const kib = /VmRSS:\s+(\d+) kB/.exec(status)?.[1]
  if (!kib) throw new Error(`No VmRSS for ${server.child.pid}`)
  return Number(kib) * 1024
}

/** POSTs `total` bytes of JSON-looking filler, declared or chunked; stops sending once answered. */
function postHuge(url: string, declared: boolean): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        ...(declared ? { 'content-length': String(hugeBytes) } : {}),
      },
    })
    let answered = false
    request.on('response', (response) => {
      answered = true
      let body = ''
      response.on('data', (chunk: Buffer) => {
        body += chunk.toString('utf8')
      })
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }))
      response.on('error', reject)
    })
    // The server may hang up on the rest of a refused body: only an error before an answer is one.
    request.on('error', (error) => {
      if (!answered) reject(error)
    })
    const chunk = Buffer.alloc(1024 * 1024, ' ')
    let sent = 0
    const pump = () => {
      while (!answered && !request.destroyed && sent < hugeBytes) {
        sent += chunk.length
        if (!request.write(chunk)) return void request.once('drain', pump)
      }
      if (!answered && !request.destroyed) request.end()
    }
    pump()
  })
}

describe.skipIf(!hasPostgres)('a relayed body', () => {
  beforeAll(async () => {
    const turns = scriptedTurns()
    fake = await startFakeOpenAI({ fallback: turns.fallback })
    const database = await createTestDatabase('relay_bounds')
    let ownerPort = 0
    forwarder = createServer((client) => {
      sockets.add(client)
      const upstream = connect(ownerPort, '127.0.0.1')
      sockets.add(upstream)
      client.on('data', (chunk: Buffer) => {
        bytesToOwner += chunk.length
        if (toOwner.length < 1_000_000) toOwner += chunk.toString('latin1')
      })
      client.pipe(upstream).pipe(client)
      for (const socket of [client, upstream]) {
        socket.on('error', () => {})
        socket.on('close', () => {
          sockets.delete(socket)
          client.destroy()
          upstream.destroy()
        })
      }
    })
    await new Promise<void>((resolve) => forwarder.listen(0, '127.0.0.1', resolve))
    const forwarderUrl = `http://127.0.0.1:${(forwarder.address() as AddressInfo).port}`
    const env = {
      SEXTANT_DB: database,
      SEXTANT_API_TOKEN: token,
      SEXTANT_BASE_URL: fake.baseUrl,
      SEXTANT_MODEL: 'fake/agent-model',
      SEXTANT_HEARTBEAT_MS: '200',
      SEXTANT_LEASE_MS: '30000',
    }
    owner = await startChildServer({ ...env, SEXTANT_INTERNAL_URL: forwarderUrl })
    ownerPort = Number(new URL(owner.url).port)
    relaying = await startChildServer(env)
    // A run that stays live on its owner: its model never answers.
    const task = turns.script('Wait for ever.', { hang: true })
    const posted = await fetch(`${owner.url}/v1/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ task }),
    })
    expect(posted.status).toBe(200)
    runId = runIdOf(posted)
    void posted.body?.cancel()
  }, 180_000)

  afterAll(async () => {
    for (const socket of sockets) socket.destroy()
    await new Promise<void>((resolve) => (forwarder ? forwarder.close(() => resolve()) : resolve()))
    await relaying?.close()
    await owner?.close()
    fake?.close()
  })

  test('over the route’s 64 KiB, declared or chunked, is 413 on the relaying server: the owner gets nothing, and memory does not hold it', async () => {
    const input = `${relaying.url}/v1/runs/${runId}/input`
    // A small input is relayed: the owner answers it (the run is not taken over).
    const small = await until(
      async () => {
        const response = await fetch(input, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ type: 'click', x: 1, y: 1 }),
        })
        const body = await response.text()
        return response.status === 409 && body
      },
      { what: 'a small input relayed to the owner and answered there' },
    )
    expect(small).toMatch(/not taken over/)
    expect(toOwner).toContain(`POST /v1/runs/${runId}/input`)

    for (const declared of [true, false]) {
      toOwner = ''
      bytesToOwner = 0
      const before = residentBytes(relaying)
      let peak = before
      const sampler = setInterval(() => {
        peak = Math.max(peak, residentBytes(relaying))
      }, 10)
      const answer = await postHuge(input, declared).finally(() => clearInterval(sampler))
      peak = Math.max(peak, residentBytes(relaying))
      // Generous: buffering the body whole grows it by the body and more; bounded reading, by noise.
      expect(peak - before, declared ? 'declared' : 'chunked').toBeLessThan(hugeBytes / 2)
      expect(answer.status, declared ? 'declared' : 'chunked').toBe(413)
      expect(answer.body).toContain('payload_too_large')
      expect(toOwner).not.toContain('/input')
      expect(bytesToOwner).toBe(0)
    }
  })
})
