import { afterAll, beforeAll, expect, test } from 'vitest'
import type { AgentEvent, AgentEventOf } from '../../../src/events/events.ts'
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
import { type PageServer, startPageServer } from '../../support/page-server.ts'
import { events, type Harness, postRun, readSse, runIdOf, startHarness } from '../support.ts'
import { latestView, timesAsked } from './view-reading.ts'

// Issue #45: a save that "does nothing" because the page failed in its console and its network. A
// whole run over HTTP with a scripted model that acts only on what its prompt shows: it types a secret
// into the note, clicks the careless Save (a plain div), and reads why from its next prompt, then with
// read_console and read_network. The events, the prompt and the results must say so, the secret never.

let fake: FakeOpenAI
let harness: Harness
let site: PageServer

const secret = 'hunter2-n0te-value'
const saveTask = 'Save a note made of the secret and find out why saving fails.'
const floodTask = 'Press Log once and finish.'

/** The ref of the latest view's line that ends with `text` (the careless Save has no name, only its text). */
function refEndingWith(request: FakeRequest, text: string): string | undefined {
  const line = latestView(promptText(request))
    .split('\n')
    .find((each) => each.endsWith(text))
  return line ? /\[ref=([^\]]+)\]/.exec(line)?.[1] : undefined
}

function model(request: FakeRequest): FakeTurn {
  const text = promptText(request)
  if (text.includes(saveTask)) {
    const turn = timesAsked(fake, saveTask)
    if (turn === 1) {
      const field = /textbox "Note" \[ref=([^\]]+)\]/.exec(latestView(text))?.[1]
      return field
        ? actionTurn('type', { ref: field, text: '<secret>note</secret>' })
        : doneTurn('No field.', false)
    }
    if (turn === 2) {
      const save = refEndingWith(request, ': Save')
      return save ? actionTurn('click', { ref: save }) : doneTurn('No Save.', false)
    }
    if (turn === 3) return actionTurn('read_console', {})
    if (turn === 4) return actionTurn('read_network', { failedOnly: true })
    return doneTurn('The save endpoint answers 500.', false)
  }
  if (text.includes(floodTask)) {
    if (timesAsked(fake, floodTask) > 1) return doneTurn('Pressed.')
    const log = /button "Log" \[ref=([^\]]+)\]/.exec(latestView(text))?.[1]
    return log ? actionTurn('click', { ref: log }) : doneTurn('No Log button.', false)
  }
  return doneTurn('Nothing to do.', false)
}

beforeAll(async () => {
  fake = await startFakeOpenAI({ fallback: model })
  site = await startPageServer({
    root: fixturesDir,
    routes: { '/api/save': (_request, response) => void response.writeHead(500).end('{"error":"boom"}') },
  })
  harness = await startHarness({ fake, browser: 'chromium' })
})
afterAll(async () => {
  await harness?.close()
  await site?.close()
  await fake?.close()
})

function observations(all: AgentEvent[]): AgentEventOf<'observation'>[] {
  return all.filter((event): event is AgentEventOf<'observation'> => event.type === 'observation')
}

function resultOf(all: AgentEvent[], tool: string): string | undefined {
  const start = all.find((event) => event.type === 'tool_call_start' && event.tool === tool)
  const callId = start?.type === 'tool_call_start' ? start.callId : undefined
  const result = all.find((event) => event.type === 'tool_call_result' && event.callId === callId)
  return result?.type === 'tool_call_result' ? result.result : undefined
}

test("a click that logs the typed secret, throws and fails two requests: the next step's events and prompt say so, scrubbed", async () => {
  const response = await postRun(harness.url, {
    task: saveTask,
    startUrl: `${site.url}/page-log/careless-save.html`,
    allowedDomains: [site.url.replace('http://', '')],
    secrets: { note: secret },
    maxTurns: 6,
  })
  const raw = await readSse(response)
  const all = events(raw)
  expect(all.at(-1)).toMatchObject({ type: 'done', result: { text: 'The save endpoint answers 500.' } })

  // Step 3 observes what the click (step 2) set off; the steps before saw nothing.
  const seen = observations(all)
  expect(seen.slice(0, 2).map((each) => each.pageLog)).toEqual([undefined, undefined])
  const log = seen[2]?.pageLog
  expect(log?.console).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ level: 'error', text: 'could not save the note <secret>note</secret>' }),
      expect.objectContaining({ level: 'exception', text: expect.stringContaining('TypeError') }),
    ]),
  )
  expect(log?.network).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ method: 'POST', url: `${site.url}/api/save?…`, status: 500 }),
      expect.objectContaining({ url: 'http://blocked.example/beacon', refused: 'not in allowedDomains' }),
    ]),
  )

  // The model's next prompt holds the one short line; the one before it had none.
  const asked = fake.requests.filter((each) => promptText(each).includes(saveTask)).map(promptText)
  expect(asked[1]).not.toContain('the page reported')
  const line = asked[2]?.split('\n').find((each) => each.includes('Since the last step the page reported:'))
  expect(line).toContain('console error "could not save the note <secret>note</secret>"')
  expect(line).toContain('uncaught exception "TypeError: ')
  // Three of the four, console and network in turn (the refusal or the 500, whichever ended first).
  expect(line).toMatch(/→ (refused: not in allowedDomains|500);/)
  expect(line).toContain('(+1 more: read_console, read_network).')
  expect(line?.length).toBeLessThan(600)

  expect(resultOf(all, 'read_console')).toContain(
    'console error "could not save the note <secret>note</secret>"',
  )
  const failed = resultOf(all, 'read_network')?.split('\n').sort()
  expect(failed).toEqual([
    'GET http://blocked.example/beacon → refused: not in allowedDomains',
    `POST ${site.url}/api/save?… → 500`,
  ])

  // The secret reached the page and was echoed in its console: no event, stored event or prompt has it.
  expect(JSON.stringify(raw)).not.toContain(secret)
  expect(JSON.stringify(fake.requests.map((each) => each.body))).not.toContain(secret)
  const stored = await harness.store.events(runIdOf(response))
  expect(observations(stored)[2]?.pageLog).toEqual(log)
  expect(JSON.stringify(stored)).not.toContain(secret)
})

test('a page that logs 10,000 errors on a click: the step lists ten and counts the rest, the server answers meanwhile', async () => {
  const response = await postRun(harness.url, {
    task: floodTask,
    startUrl: `${site.url}/page-log/console-flood.html`,
    maxTurns: 3,
  })
  const [raw, health] = await Promise.all([readSse(response), fetch(`${harness.url}/healthz`)])
  expect(health.status).toBe(200)
  const all = events(raw)
  expect(all.at(-1)).toMatchObject({ type: 'done', result: { success: true } })
  const log = observations(all)[1]?.pageLog
  // The click's own answer may time out here, on main too: Playwright's server reads the 10,000 messages
  // before it (the browser-level test holds that the page log adds nothing to that). The handler ran.
  expect(log?.console).toHaveLength(10)
  expect(log?.omitted).toBe(9_990)
  const asked = fake.requests.filter((each) => promptText(each).includes(floodTask)).map(promptText)
  expect(asked[1]).toContain('console error "flood 9901"')
  expect(asked[1]).toContain('(+9997 more: read_console, read_network).')
})
