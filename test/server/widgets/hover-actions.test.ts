import { afterAll, beforeAll, expect, test } from 'vitest'
import { fixturesDir } from '../../browser/helpers/harness.ts'
import {
  actionTurn,
  doneTurn,
  type FakeOpenAI,
  type FakeRequest,
  type FakeTurn,
  promptText,
  startFakeOpenAI,
} from '../../support/models/fake-openai.ts'
import { type PageServer, serveFolder } from '../../support/page-server.ts'
import { events, type Harness, postRun, readSse, runIdOf, startHarness } from '../support.ts'
import { latestView, timesAsked } from './view-reading.ts'

// Through the HTTP API, a scripted model trashes a WordPress post from the posts list, acting only on
// what the page view shows: the row actions appear only while their row is hovered (wp-posts.html copies
// WordPress's markup and its list-tables.css), so the view must list the row's Trash link with a ref,
// and clicking that ref must hover the row first.

let fake: FakeOpenAI
let harness: Harness
let site: PageServer
/** The run that trashed the post, for the replay. */
let recordedRunId = ''

const task = 'Move the post named "Hello world!" to the Trash.'

/** The ref of the line holding `word` inside the row whose title link is `title`, read off the view. */
function refInRow(view: string, title: string, word: string): string | undefined {
  const lines = view.split('\n')
  const start = lines.findIndex((line) => line.includes(`link ${JSON.stringify(title)}`))
  if (start < 0) return undefined
  for (const line of lines.slice(start + 1)) {
    if (/^\s*[-*] row\b/.test(line)) return undefined
    if (line.includes(word)) return /\[ref=(\w+)\]/.exec(line)?.[1]
  }
  return undefined
}

function model(request: FakeRequest): FakeTurn {
  const view = latestView(promptText(request))
  if (view.includes('moved to the Trash.')) return doneTurn('Trashed "Hello world!".')
  if (timesAsked(fake, task) > 2) return doneTurn('The post is still there.', false)
  const trash = refInRow(view, 'Hello world!', 'Trash')
  return trash ? actionTurn('click', { ref: trash }) : doneTurn('No Trash link in its row.', false)
}

beforeAll(async () => {
  fake = await startFakeOpenAI({ fallback: model })
  site = await serveFolder(fixturesDir)
  harness = await startHarness({ fake, browser: 'chromium' })
})
afterAll(async () => {
  await harness?.close()
  await site?.close()
  await fake?.close()
})

test('the model trashes "Hello world!" by clicking the Trash link its row shows on hover', async () => {
  const response = await postRun(harness.url, {
    task,
    startUrl: `${site.url}/hover/wp-posts.html`,
    maxTurns: 4,
  })
  recordedRunId = runIdOf(response)
  const list = events(await readSse(response))
  const results = list.flatMap((event) => (event.type === 'tool_call_result' ? [event] : []))
  expect(results.map((result) => [result.ok, result.result])).toEqual([
    [true, "Clicked link 'Move “Hello world!” to the Trash'."],
    [true, expect.any(String)],
  ])
  expect(list.at(-1)).toMatchObject({ type: 'done', reason: 'model_stop', result: { success: true } })
  // The page the model last saw: that post trashed, its look-alike and the others still listed.
  const last = latestView(promptText(fake.requests.at(-1) as FakeRequest))
  expect(last).toMatch(/URL: \S+\?trashed=1&ids=1&/)
  expect(last).toContain('1 post moved to the Trash.')
  expect(last).not.toMatch(/link "Hello world!" \[url/)
  expect(last).toMatch(/link "Hello world! \(draft copy\)" \[url/)
  expect(last).toMatch(/link "Pricing page rewrite" \[url/)
})

test('its recording replays without a model: the click on the Trash link hovers the row again', async () => {
  expect(recordedRunId).not.toBe('')
  const asked = fake.requests.length
  const response = await postRun(harness.url, {
    replay: recordedRunId,
    startUrl: `${site.url}/hover/wp-posts.html`,
  })
  const list = events(await readSse(response))
  expect(fake.requests).toHaveLength(asked)
  const results = list.flatMap((event) =>
    event.type === 'tool_call_result' ? [[event.ok, event.result]] : [],
  )
  expect(results[0]).toEqual([true, "Clicked link 'Move “Hello world!” to the Trash'."])
  expect(list.at(-1)).toMatchObject({ type: 'done', reason: 'model_stop', result: { success: true } })
})
