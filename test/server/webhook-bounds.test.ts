import { randomBytes } from 'node:crypto'
import { createServer as createHttpServer, type Server } from 'node:http'
import {
  type AddressInfo,
  createServer as createTcpServer,
  type Socket,
  type Server as TcpServer,
} from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { doneTurn, type FakeOpenAI, startFakeOpenAI } from '../support/models/fake-openai.ts'
import { until } from '../support/until.ts'
import { type Harness, json, postRun, runIdOf, startHarness } from './support.ts'

// Hostile webhook receivers: one trickles its answer a byte at a time (an idle timeout never
// fires), one floods an endless body. Each attempt must be cut at its bound, recorded as failed
// with the reason, retried on schedule, and the server must go on answering meanwhile.

const secret = `whsec_${randomBytes(32).toString('base64')}`
/** Small for the test: the bound the server is configured with (SEXTANT_WEBHOOK_TIMEOUT_MS). */
const attemptTimeoutMs = 1_000

let fake: FakeOpenAI
let harness: Harness

interface Attempt {
  attempt: number
  status?: number
  error?: string
  delivered: boolean
}

beforeAll(async () => {
  fake = await startFakeOpenAI({ fallback: () => doneTurn('Done.') })
  harness = await startHarness({
    fake,
    browser: null,
    config: { webhookSecret: secret, webhookHosts: ['127.0.0.1'], webhookTimeoutMs: attemptTimeoutMs },
  })
})

afterAll(async () => {
  await harness?.close()
  await fake?.close()
})

async function listen(server: Server | TcpServer): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

async function close(server: Server | TcpServer): Promise<void> {
  if ('closeAllConnections' in server) server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
}

/** Starts a run whose webhook is `url`, and waits for its end's attempts as GET /v1/runs/:id shows them. */
async function attemptsOf(url: string, count: number): Promise<Attempt[]> {
  const response = await postRun(harness.url, { task: 'Nothing.', webhook: `${url}/hook` })
  expect(response.status).toBe(200)
  const id = runIdOf(response)
  await response.text()
  return until(
    async () => {
      const view = await json<{ webhookAttempts?: Attempt[] }>(await fetch(`${harness.url}/v1/runs/${id}`))
      const attempts = view.webhookAttempts ?? []
      return attempts.length >= count && attempts
    },
    { what: `${count} recorded attempt(s)`, timeoutMs: 15_000 },
  )
}

/** /healthz, bounded generously: a server held by a receiver would not answer in time. */
async function healthz(): Promise<number> {
  const response = await fetch(`${harness.url}/healthz`, { signal: AbortSignal.timeout(5_000) })
  await response.body?.cancel()
  return response.status
}

describe('a hostile webhook receiver', () => {
  test('one that trickles its answer a byte at a time is cut at the deadline, recorded failed, retried', async () => {
    const open = new Set<Socket>()
    let connections = 0
    // Below HTTP: the status line, then one byte of a header every 50 ms, forever.
    const receiver = createTcpServer((socket) => {
      connections++
      open.add(socket)
      socket.on('data', () => {})
      socket.write('HTTP/1.1 200 OK\r\nX-Slow: ')
      const timer = setInterval(() => socket.write('a'), 50)
      socket.on('close', () => {
        clearInterval(timer)
        open.delete(socket)
      })
      socket.on('error', () => {})
    })
    const url = await listen(receiver)
    try {
      const attempts = attemptsOf(url, 2)
      // While the receiver trickles, the server answers.
      await until(() => open.size > 0, { what: 'the receiver to be trickling' })
      expect(await healthz()).toBe(200)
      expect(open.size).toBeGreaterThan(0)

      const [first, second] = await attempts
      expect(first).toMatchObject({ attempt: 1, delivered: false })
      expect(first?.status).toBeUndefined()
      expect(first?.error).toMatch(/deadline of 1000 ms: no answer by then/)
      // The retry schedule goes on: a second attempt, cut the same way.
      expect(second).toMatchObject({ attempt: 2, delivered: false })
      expect(second?.error).toMatch(/deadline/)
      expect(connections).toBeGreaterThanOrEqual(2)
      // Each cut attempt let its connection go.
      await until(() => open.size <= 1, { what: 'cut connections to close' })
    } finally {
      for (const socket of open) socket.destroy()
      await close(receiver)
    }
  })

  test('one that answers an endless body is read a few KiB at most, recorded failed, retried', async () => {
    const sentPerConnection: number[] = []
    const closed: boolean[] = []
    const chunk = Buffer.alloc(64 * 1024, 'x')
    const receiver = createHttpServer((request, response) => {
      request.resume()
      const index = sentPerConnection.push(0) - 1
      response.writeHead(200, { 'content-type': 'text/plain' })
      // As fast as the connection takes it, until the server hangs up.
      const pump = () => {
        while (!response.destroyed) {
          sentPerConnection[index] = (sentPerConnection[index] ?? 0) + chunk.length
          if (!response.write(chunk)) return void response.once('drain', pump)
        }
      }
      response.on('close', () => {
        closed[index] = true
      })
      pump()
    })
    const url = await listen(receiver)
    try {
      const attempts = attemptsOf(url, 2)
      await until(() => sentPerConnection.length > 0, { what: 'the receiver to be flooding' })
      expect(await healthz()).toBe(200)

      const [first, second] = await attempts
      expect(first).toMatchObject({ attempt: 1, delivered: false })
      expect(first?.error).toMatch(/answer \(200\) went on past 16 KiB of body; it was not read further/)
      expect(second).toMatchObject({ attempt: 2, delivered: false })
      // The server hung up on the flood: what the receiver got out is socket buffers, not the gigabytes of an endless read.
      await until(() => closed[0], { what: 'the first flood to be cut' })
      expect(sentPerConnection[0]).toBeLessThan(32 * 1024 * 1024)
      expect(await healthz()).toBe(200)
    } finally {
      await close(receiver)
    }
  })
})
