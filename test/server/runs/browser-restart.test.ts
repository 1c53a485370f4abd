import { afterAll, beforeAll, expect, test } from 'vitest'
import { killChromiumChildren } from '../../support/kill-chromium.ts'
import {
  agentOutput,
  type FakeOpenAI,
  type FakeTurn,
  startFakeOpenAI,
} from '../../support/models/fake-openai.ts'
import { type PageServer, startPageServer } from '../../support/page-server.ts'
import { latestView } from '../../support/todo-flow.ts'
import { events, type Harness, json, postRun, readSse, runIdOf, startHarness } from '../support.ts'

// The server's Chromium is killed under a run (its process is this test process's child):
// the run gets a fresh browser from the server's pool once, and a second death ends it.

const counterPage = `<!doctype html><title>Counter</title>
<h1>Counter</h1><p id="count">Count: 0</p>
<button onclick="document.getElementById('count').textContent = 'Count: ' + (++window.n)">Add</button>
<script>window.n = 0</script>`

const restartNote = 'This run was given a fresh browser'

let fake: FakeOpenAI
let harness: Harness
let pages: PageServer
/** Whether the model kills the browser before it answers this prompt (the nth of the run). */
let killWhen: (view: string, call: number) => boolean = () => false
let calls = 0

/** Clicks Add until the count is 1, then reports it; answers `wait` when the page cannot be seen. */
function countingTurn(view: string): FakeTurn {
  calls++
  if (killWhen(view, calls)) expect(killChromiumChildren()).not.toEqual([])
  const count = /Count: (\d+)/.exec(view)?.[1]
  if (count === '1') return { output: agentOutput({ done: { text: 'The count is 1.', success: true } }) }
  const add = /button "Add" \[ref=([\w-]+)\]/.exec(view)?.[1]
  if (count === '0' && add) return { output: agentOutput({ click: { ref: add } }) }
  return { output: agentOutput({ wait: { seconds: 1 } }) }
}

beforeAll(async () => {
  fake = await startFakeOpenAI({ fallback: (request) => countingTurn(latestView(request)) })
  pages = await startPageServer({ pages: { '/': counterPage } })
  harness = await startHarness({ fake, browser: 'chromium' })
})
afterAll(async () => {
  await harness?.close()
  await pages?.close()
  await fake?.close()
})

async function run(): Promise<{ id: string; list: ReturnType<typeof events> }> {
  calls = 0
  const response = await postRun(harness.url, {
    task: 'Click Add once and report the count.',
    startUrl: `${pages.url}/`,
  })
  return { id: runIdOf(response), list: events(await readSse(response)) }
}

test('a run whose browser is killed gets a fresh one from the pool, says so in its stream, and completes', async () => {
  killWhen = (_, call) => call === 1
  const { id, list } = await run()
  const restarted = list.filter((event) => event.type === 'warning' && event.code === 'browser_restarted')
  expect(restarted).toHaveLength(1)
  expect(restarted[0]).toMatchObject({ message: expect.stringContaining('The browser process exited.') })
  expect(fake.requests.some((request) => latestView(request).includes(restartNote))).toBe(true)
  expect(list.at(-1)).toMatchObject({
    type: 'done',
    reason: 'model_stop',
    result: { success: true, text: 'The count is 1.' },
  })
  expect(await json(await fetch(`${harness.url}/v1/runs/${id}`))).toMatchObject({ status: 'completed' })
})

test('a second death ends the run with error, its result naming the browser exit', async () => {
  killWhen = (view, call) => call === 1 || view.includes(restartNote)
  const { id, list } = await run()
  expect(list.at(-1)).toMatchObject({
    type: 'done',
    reason: 'error',
    result: { success: false, text: expect.stringMatching(/^The browser process exited\./) },
  })
  expect(await json(await fetch(`${harness.url}/v1/runs/${id}`))).toMatchObject({ status: 'failed' })
})
