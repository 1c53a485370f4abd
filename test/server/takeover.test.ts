import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { AgentEvent } from '../../src/events/events.ts'
import { managerBackend } from '../../src/server/runs/mcp-backend.ts'
import {
  actionTurn,
  doneTurn,
  type FakeOpenAI,
  promptText,
  startFakeOpenAI,
} from '../support/models/fake-openai.ts'
import { type PageServer, startPageServer } from '../support/page-server.ts'
import { events, type Harness, json, postRun, readSse, runIdOf, startHarness } from './support.ts'

// A person takes a live run's browser over HTTP, drives its page in real Chromium, and hands it back.

/** A button filling the viewport's top-left corner: clicking it opens /clicked. */
const buttonPage =
  '<!doctype html><title>Takeover</title><style>body{margin:0}button{position:absolute;left:0;top:0;width:300px;height:200px}</style>' +
  '<button onclick="location.href=\'/clicked\'">Continue</button>'

let fake: FakeOpenAI
let harness: Harness
let pages: PageServer

beforeAll(async () => {
  fake = await startFakeOpenAI()
  pages = await startPageServer({
    pages: {
      '/': buttonPage,
      '/clicked': '<!doctype html><title>Clicked</title><p>A person clicked.</p>',
      // The link a person clicks in the last test: the API that runs the run, which its browser must never read.
      '/to-api': () =>
        '<!doctype html><title>Links</title><style>body{margin:0}a{position:absolute;left:0;top:0;width:300px;height:200px;display:block}</style>' +
        `<a href="${harness.url}/v1/runs">The run list</a>`,
    },
  })
  harness = await startHarness({ fake, browser: 'chromium' })
})
afterAll(async () => {
  await harness?.close()
  await pages?.close()
  await fake?.close()
})

function send(method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${harness.url}${path}`, {
    method,
    ...(body === undefined
      ? {}
      : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  })
}

test('a person takes over mid-run without being asked, clicks through /input, and hands back', async () => {
  fake.enqueue(actionTurn('wait', { seconds: 1 }), doneTurn('The person clicked on.'))
  const response = await postRun(harness.url, { task: 'Go on past the button.', startUrl: `${pages.url}/` })
  const id = runIdOf(response)
  const statuses: Record<string, number> = {}
  let asked = -1
  const person: Promise<void>[] = []
  const list = events(
    await readSse(response, (message) => {
      const event: AgentEvent = message.data
      if (event.type === 'tool_call_start') {
        person.push(
          (async () => {
            statuses.inputBefore = (
              await send('POST', `/v1/runs/${id}/input`, { type: 'key', key: 'Tab' })
            ).status
            statuses.handBackBefore = (await send('DELETE', `/v1/runs/${id}/takeover`)).status
            // The wait in flight finishes first: the run stops at the next step boundary.
            statuses.takeover = (await send('POST', `/v1/runs/${id}/takeover`)).status
          })(),
        )
      }
      if (event.type === 'takeover_started') {
        asked = fake.requests.length
        person.push(
          (async () => {
            statuses.again = (await send('POST', `/v1/runs/${id}/takeover`)).status
            statuses.outside = (
              await send('POST', `/v1/runs/${id}/input`, { type: 'click', x: 5000, y: 10 })
            ).status
            statuses.malformed = (await send('POST', `/v1/runs/${id}/input`, { type: 'click', x: 10 })).status
            statuses.badKey = (
              await send('POST', `/v1/runs/${id}/input`, { type: 'key', key: 'NoSuchKey' })
            ).status
            statuses.click = (
              await send('POST', `/v1/runs/${id}/input`, { type: 'click', x: 100, y: 100 })
            ).status
            statuses.handBack = (await send('DELETE', `/v1/runs/${id}/takeover`)).status
          })(),
        )
      }
      if (event.type === 'takeover_ended') statuses.askedWhileTakenOver = fake.requests.length - asked
      return false
    }),
  )
  await Promise.all(person)
  expect(statuses).toEqual({
    inputBefore: 409,
    handBackBefore: 409,
    takeover: 200,
    again: 200,
    outside: 400,
    malformed: 400,
    badKey: 400,
    click: 200,
    handBack: 200,
    askedWhileTakenOver: 0,
  })
  const types = list.map((event) => event.type)
  expect(types.indexOf('tool_call_result')).toBeLessThan(types.indexOf('takeover_started'))
  expect(list.find((event) => event.type === 'takeover_started')).toMatchObject({ by: 'user' })
  // The click landed: the page the run observes after hand-back is the one the button opened.
  expect(list.filter((event) => event.type === 'observation').at(-1)).toMatchObject({
    url: `${pages.url}/clicked`,
  })
  const next = promptText(fake.requests.at(-1) ?? { body: { model: '', messages: [] }, headers: {} })
  expect(next).toContain('A person took over the browser after step 1 and handed it back')
  expect(next).toContain(`${pages.url}/clicked`)
  expect(list.at(-1)).toMatchObject({ type: 'done', reason: 'model_stop' })
})

test("a person's input passes the run's network guard: a click to the API's own origin is refused", async () => {
  const secretTask = 'A run whose task only its owner may read: 5d2a-private.'
  fake.enqueue(doneTurn('Done.'))
  await readSse(await postRun(harness.url, { task: secretTask }))

  fake.enqueue(actionTurn('wait', { seconds: 1 }), doneTurn('Looked.'))
  const response = await postRun(harness.url, { task: 'Look at the links.', startUrl: `${pages.url}/to-api` })
  const id = runIdOf(response)
  const person: Promise<void>[] = []
  const list = events(
    await readSse(response, (message) => {
      const event: AgentEvent = message.data
      if (event.type === 'tool_call_start')
        person.push(send('POST', `/v1/runs/${id}/takeover`).then(() => {}))
      if (event.type === 'takeover_started') {
        person.push(
          (async () => {
            expect(
              (await send('POST', `/v1/runs/${id}/input`, { type: 'click', x: 100, y: 100 })).status,
            ).toBe(200)
            expect((await send('DELETE', `/v1/runs/${id}/takeover`)).status).toBe(200)
          })(),
        )
      }
      return false
    }),
  )
  await Promise.all(person)
  expect(list.map((event) => event.type)).toContain('takeover_ended')
  // What the person's click loaded reached neither the run's events nor the model.
  expect(list.map((event) => JSON.stringify(event)).join('\n')).not.toContain('5d2a-private')
  expect(JSON.stringify(fake.requests.at(-1)?.body.messages)).not.toContain('5d2a-private')
  expect(list.at(-1)).toMatchObject({ type: 'done', reason: 'model_stop' })
})

test('an abort while a person has the browser ends the run user_abort', async () => {
  // No turn after it: the run never asks the model again.
  fake.enqueue(actionTurn('hand_over', { reason: 'Enter the code sent to your phone' }))
  const response = await postRun(harness.url, { task: 'Sign in.', startUrl: `${pages.url}/` })
  const id = runIdOf(response)
  let aborted: Promise<Response> | undefined
  const list = events(
    await readSse(response, (message) => {
      if (message.data.type === 'takeover_started') aborted = send('DELETE', `/v1/runs/${id}`)
      return false
    }),
  )
  expect((await aborted)?.status).toBe(200)
  expect(list.find((event) => event.type === 'takeover_started')).toMatchObject({
    by: 'model',
    reason: 'Enter the code sent to your phone',
  })
  expect(list.at(-1)).toMatchObject({ type: 'done', reason: 'user_abort' })
  expect((await send('POST', `/v1/runs/${id}/takeover`)).status).toBe(409)
  expect((await send('POST', '/v1/runs/run_nope/takeover')).status).toBe(404)
})

describe('without a browser, on a short handover timeout', () => {
  let quick: Harness
  beforeAll(async () => {
    quick = await startHarness({ fake, browser: null, config: { handoverTimeoutMs: 1000 } })
  })
  afterAll(async () => {
    await quick?.close()
  })

  test('nobody comes: the tool result the model reads says so', async () => {
    fake.enqueue(actionTurn('hand_over', { reason: 'Solve the captcha' }), doneTurn('Gave up.', false))
    const list = events(await readSse(await postRun(quick.url, { task: 'Pass the captcha.' })))
    expect(list.find((event) => event.type === 'takeover_ended')).toBeDefined()
    expect(list.find((event) => event.type === 'tool_call_result')).toMatchObject({
      ok: false,
      result: expect.stringContaining('Nobody came to take over within 1 s'),
    })
    expect(promptText(fake.requests.at(-1) ?? { body: { model: '', messages: [] }, headers: {} })).toContain(
      'Nobody came to take over',
    )
    const metrics = await (await fetch(`${quick.url}/metrics`)).text()
    expect(metrics).toContain('sextant_takeovers_total{by="model"} 1')
  })

  test('a run started with "handover": false cannot be taken over, nor offers hand_over', async () => {
    fake.enqueue(actionTurn('wait', { seconds: 1 }), doneTurn())
    const response = await postRun(quick.url, { task: 'Wait.', handover: false })
    const id = runIdOf(response)
    let refused: Promise<Response> | undefined
    await readSse(response, (message) => {
      if (message.data.type === 'tool_call_start')
        refused = fetch(`${quick.url}/v1/runs/${id}/takeover`, { method: 'POST' })
      return false
    })
    const answer = await refused
    expect(answer?.status).toBe(409)
    expect(await json(answer as Response)).toMatchObject({ error: { code: 'takeover_unavailable' } })
    expect(JSON.stringify(fake.requests.at(-1)?.body.tools)).toContain('"wait"')
    expect(JSON.stringify(fake.requests.at(-1)?.body.tools)).not.toContain('hand_over')
  })

  test('a replayed hand_over waits for a person; with "handover": false it ends error naming the step', async () => {
    const replay = {
      version: 1,
      task: 'Sign in',
      steps: [
        { step: 1, tool: 'hand_over', input: { reason: 'Enter the code' } },
        { step: 2, tool: 'done', input: { text: 'Signed in.', success: true } },
      ],
    }
    const response = await postRun(quick.url, { replay })
    const id = runIdOf(response)
    let handedBack: Promise<Response> | undefined
    let asMcpSeesIt: Promise<unknown> | undefined
    const waited = events(
      await readSse(response, (message) => {
        if (message.data.type === 'takeover_started') {
          asMcpSeesIt = managerBackend(quick.server.manager).getRun(id)
          handedBack = asMcpSeesIt.then(() =>
            fetch(`${quick.url}/v1/runs/${id}/takeover`, { method: 'DELETE' }),
          )
        }
        return false
      }),
    )
    expect(await asMcpSeesIt).toMatchObject({ id, status: 'running', waitingForPerson: true })
    expect((await handedBack)?.status).toBe(200)
    expect(waited.at(-1)).toMatchObject({
      type: 'done',
      reason: 'model_stop',
      result: { text: 'Signed in.' },
    })

    const refused = events(await readSse(await postRun(quick.url, { replay, handover: false })))
    expect(refused.at(-1)).toMatchObject({
      type: 'done',
      reason: 'error',
      result: { text: expect.stringContaining('The replay stopped at step 1 (hand_over: Enter the code)') },
    })
  })
})
