import { afterAll, beforeAll, expect, test } from 'vitest'
import type { AgentEvent, AgentEventOf } from '../../../src/events/events.ts'
import {
  actionTurn,
  agentOutput,
  doneTurn,
  type FakeOpenAI,
  promptText,
  startFakeOpenAI,
} from '../../support/models/fake-openai.ts'
import { events, type Harness, postRun, readSse, runIdOf, startHarness, startTestPage } from '../support.ts'

// Sub-agents working in parallel ask for confirmations with the same call ids
// (`call_<step>`): a reply must settle the call of the run it names, and
// never another run's.

const parentTask = 'Run the two checks.'
const checks = ['check A', 'check B']

let fake: FakeOpenAI
let harness: Harness
let page: Awaited<ReturnType<typeof startTestPage>>

beforeAll(async () => {
  page = await startTestPage()
  fake = await startFakeOpenAI({
    fallback: (request) => {
      const prompt = promptText(request)
      if (prompt.includes(parentTask)) {
        return /sub-agents finished\.|sub-agents succeeded;/.test(prompt)
          ? doneTurn('Both checks ran.')
          : {
              output: agentOutput({
                dispatch_agent: {
                  tasks: checks.map((check) => ({ task: `Do ${check}.`, startUrl: page.url })),
                },
              }),
            }
      }
      // Each child runs one script (which needs a confirmation), then reports.
      return /Result:|Not run:/.test(prompt)
        ? doneTurn('Checked.')
        : actionTurn('execute_javascript', { script: 'return 6 * 7' })
    },
  })
  harness = await startHarness({ fake, browser: 'chromium' })
})
afterAll(async () => {
  await harness?.close()
  await page?.close()
  await fake?.close()
})

async function confirm(runId: string, callId: string, approve: boolean): Promise<Response> {
  return fetch(`${harness.url}/v1/runs/${runId}/confirmations/${callId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ approve }),
  })
}

test("each sub-agent's confirmation is settled by a reply naming its run; by call id alone the parent refuses to guess", async () => {
  const response = await postRun(harness.url, { task: parentTask, maxTurns: 10, subAgents: { max: 2 } })
  expect(response.status).toBe(200)
  const parentId = runIdOf(response)
  const asked: AgentEventOf<'confirmation_required'>[] = []
  let replies: Promise<{ byCallId: Response; approved: Response; denied: Response }> | undefined
  const list = events(
    await readSse(response, (message) => {
      const event: AgentEvent = message.data
      if (event.type !== 'confirmation_required') return false
      asked.push(event)
      if (asked.length === 2) {
        const [first, second] = asked as [
          AgentEventOf<'confirmation_required'>,
          AgentEventOf<'confirmation_required'>,
        ]
        replies = (async () => {
          const byCallId = await confirm(parentId, first.callId, true)
          const approved = await confirm(first.runId, first.callId, true)
          const denied = await confirm(second.runId, second.callId, false)
          return { byCallId, approved, denied }
        })()
      }
      return false
    }),
  )

  // Both children asked, each under its own run, with the same call id.
  expect(asked).toHaveLength(2)
  const [first, second] = asked as [
    AgentEventOf<'confirmation_required'>,
    AgentEventOf<'confirmation_required'>,
  ]
  expect(new Set(asked.map((event) => event.parentRunId))).toEqual(new Set([parentId]))
  expect(first.runId).not.toBe(second.runId)
  expect(first.callId).toBe(second.callId)

  const { byCallId, approved, denied } = await replies!
  expect(byCallId.status).toBe(409)
  expect(await byCallId.json()).toMatchObject({ error: { code: 'ambiguous_call' } })
  expect([approved.status, denied.status]).toEqual([200, 200])

  const resolved = (runId: string) =>
    list.find((event) => event.type === 'confirmation_resolved' && event.runId === runId)
  expect(resolved(first.runId)).toMatchObject({ approved: true, by: 'user' })
  expect(resolved(second.runId)).toMatchObject({ approved: false, by: 'user' })
  const result = (runId: string) =>
    list.find(
      (event) => event.type === 'tool_call_result' && event.runId === runId && event.callId === first.callId,
    )
  expect(result(first.runId)).toMatchObject({ ok: true, result: expect.stringContaining('42') })
  expect(result(second.runId)).toMatchObject({ ok: false, result: expect.stringContaining('denied') })
  expect(list.at(-1)).toMatchObject({ type: 'done', runId: parentId, reason: 'model_stop' })

  // Settled once: the same reply again is refused.
  expect((await confirm(first.runId, first.callId, true)).status).toBe(409)
})
