import { connect } from 'node:net'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { doneTurn, type FakeOpenAI, startFakeOpenAI } from '../../support/models/fake-openai.ts'
import { until } from '../../support/until.ts'
import { type Harness, postRun, readSse, runIdOf, startHarness } from '../support.ts'

let fake: FakeOpenAI
let harness: Harness

beforeAll(async () => {
  fake = await startFakeOpenAI()
  harness = await startHarness({ fake, browser: null })
})
afterAll(async () => {
  await harness?.close()
  await fake?.close()
})

test('Last-Event-ID and ?after take decimal integers only', async () => {
  fake.enqueue(doneTurn())
  const response = await postRun(harness.url, { task: 'Finish at once.' })
  const id = runIdOf(response)
  await readSse(response)
  for (const bad of ['0x1', '1e0', '+1', '1.0', '-0', '00000000000000001'.repeat(2), 'Infinity']) {
    const byHeader = await fetch(`${harness.url}/v1/runs/${id}/events`, { headers: { 'last-event-id': bad } })
    expect(byHeader.status, `Last-Event-ID: "${bad}"`).toBe(400)
  }
  // (HTTP trims a header's surrounding spaces, so those are only tested in the query.)
  for (const bad of ['0x1', '1e0', ' 1', '1 ', '+1', '1.0', '-0', 'Infinity']) {
    const byQuery = await fetch(`${harness.url}/v1/runs/${id}/events?after=${encodeURIComponent(bad)}`)
    expect(byQuery.status, `?after=${bad}`).toBe(400)
    expect(await byQuery.json()).toMatchObject({ error: { code: 'invalid_request' } })
  }
  const good = await fetch(`${harness.url}/v1/runs/${id}/events?after=1`)
  expect(good.status).toBe(200)
  expect((await readSse(good)).map((message) => message.id)[0]).toBe('2')
})

test('a client that abandons its request body is logged as a client error, not a 500', async () => {
  const { port } = new URL(harness.url)
  const before = harness.logs.length
  const socket = connect(Number(port), '127.0.0.1')
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()))
  socket.write(
    'POST /v1/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{"task": "half',
  )
  // Gone before the body is whole (once the server has had a turn to start reading it).
  await new Promise((resolve) => setImmediate(resolve))
  socket.destroy()
  const request = await until(
    () =>
      harness.logs
        .slice(before)
        .find((line) => line.msg === 'request' && line.method === 'POST' && line.path === '/v1/runs'),
    { what: 'the abandoned request to be logged' },
  )
  expect(request).toMatchObject({ status: 400 })
  expect(harness.logs.slice(before).filter((line) => line.msg === 'request failed')).toEqual([])
})
