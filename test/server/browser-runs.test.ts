import { afterAll, beforeAll, expect, test } from 'vitest'
import type { AgentEvent } from '../../src/events/events.ts'
import {
  actionTurn,
  doneTurn,
  type FakeOpenAI,
  navigateTurn,
  startFakeOpenAI,
} from '../support/models/fake-openai.ts'
import { until } from '../support/until.ts'
import {
  events,
  type Harness,
  json,
  postRun,
  readSse,
  runIdOf,
  startHarness,
  startTestPage,
} from './support.ts'

// Runs in real headless Chromium, driven through the HTTP API by the fake model.

let fake: FakeOpenAI
let harness: Harness
let page: Awaited<ReturnType<typeof startTestPage>>

beforeAll(async () => {
  fake = await startFakeOpenAI()
  page = await startTestPage()
  harness = await startHarness({ fake, browser: 'chromium' })
})
afterAll(async () => {
  await harness?.close()
  await page?.close()
  await fake?.close()
})

test('a run navigates a real page and finishes', async () => {
  fake.enqueue(navigateTurn(page.url), doneTurn('The answer is 42.'))
  const response = await postRun(harness.url, { task: 'Find the answer on the test page.' })
  const list = events(await readSse(response))
  const result = list.find((event) => event.type === 'tool_call_result')
  expect(result).toMatchObject({ ok: true })
  const observations = list.filter((event) => event.type === 'observation')
  expect(observations.at(-1)).toMatchObject({ url: page.url, title: 'Sextant Test Page' })
  expect(list.at(-1)).toMatchObject({ type: 'done', reason: 'model_stop', result: { success: true } })
  expect(await json(await fetch(`${harness.url}/v1/runs/${runIdOf(response)}`))).toMatchObject({
    status: 'completed',
    steps: 2,
  })
})

test('execute_javascript waits for a confirmation that the API delivers', async () => {
  fake.enqueue(
    navigateTurn(page.url),
    actionTurn('execute_javascript', { script: 'return document.querySelector("#answer").textContent' }),
    actionTurn('execute_javascript', { script: 'return 1 + 1' }),
    doneTurn('Read it with JavaScript.'),
  )
  const response = await postRun(harness.url, {
    task: 'Read the answer with JavaScript.',
    startUrl: page.url,
  })
  const id = runIdOf(response)
  const replies: Promise<Response>[] = []
  let approvals = 0
  const list = events(
    await readSse(response, (message) => {
      const event: AgentEvent = message.data
      if (event.type === 'confirmation_required') {
        // Approve the first call, deny the second.
        const approve = approvals++ === 0
        replies.push(
          fetch(`${harness.url}/v1/runs/${id}/confirmations/${event.callId}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ approve }),
          }),
        )
      }
      return false
    }),
  )
  expect((await Promise.all(replies)).map((reply) => reply.status)).toEqual([200, 200])
  const resolved = list.filter((event) => event.type === 'confirmation_resolved')
  expect(resolved).toMatchObject([
    { approved: true, by: 'user' },
    { approved: false, by: 'user' },
  ])
  const results = list.filter((event) => event.type === 'tool_call_result' && event.result !== undefined)
  expect(
    results.some((event) => event.type === 'tool_call_result' && event.ok && event.result.includes('42')),
  ).toBe(true)
  expect(list.at(-1)).toMatchObject({ type: 'done', reason: 'model_stop' })
  // Once resolved, the same call cannot be confirmed again.
  const callId = (resolved[0] as { callId: string }).callId
  const again = await fetch(`${harness.url}/v1/runs/${id}/confirmations/${callId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ approve: true }),
  })
  expect(again.status).toBe(409)
})

test('DELETE mid-run in a browser ends the run with user_abort', async () => {
  fake.enqueue(navigateTurn(page.url), { hang: true })
  const response = await postRun(harness.url, { task: 'Open the page, then think forever.' })
  const id = runIdOf(response)
  const streamed = readSse(response)
  await until(async () => {
    const view = await json<{ steps: number }>(await fetch(`${harness.url}/v1/runs/${id}`))
    return view.steps >= 2
  })
  const state = await json(await fetch(`${harness.url}/v1/runs/${id}`, { method: 'DELETE' }))
  expect(state).toMatchObject({ status: 'stopped', reason: 'user_abort' })
  expect(events(await streamed).at(-1)).toMatchObject({ type: 'done', reason: 'user_abort' })
})

test("a run's browser cannot read the API that runs it, even when allowedDomains lists it", async () => {
  const secretTask = 'Another run whose task only its owner may read: 7c1e-private.'
  fake.enqueue(doneTurn('Done.'))
  await readSse(await postRun(harness.url, { task: secretTask }))

  const api = new URL(harness.url)
  const localhostApi = `http://localhost:${api.port}/v1/runs`
  fake.enqueue(
    navigateTurn(`${harness.url}/v1/runs`),
    navigateTurn(localhostApi),
    actionTurn('read_page', {}),
    doneTurn('Tried.'),
  )
  const requestsBefore = fake.requests.length
  const response = await postRun(harness.url, {
    task: 'Read the list of runs.',
    allowedDomains: [api.host, `localhost:${api.port}`],
  })
  const list = events(await readSse(response))
  const results = list.filter((event) => event.type === 'tool_call_result')
  expect(results.slice(0, 2).map((event) => event.ok)).toEqual([false, false])
  expect(results[0]?.result).toMatch(/refused|blocked/i)
  const seenByModel = fake.requests
    .slice(requestsBefore)
    .map((request) => JSON.stringify(request.body.messages))
    .join('\n')
  expect(seenByModel).not.toContain('7c1e-private')
  expect(list.map((event) => JSON.stringify(event)).join('\n')).not.toContain('7c1e-private')
})
