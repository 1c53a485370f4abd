import { MockLanguageModelV4 } from 'ai/test'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { z } from 'zod'
import { type AgentEvent, playwrightSpec, recordingOf, runAgent } from '../../src/index.ts'
import type { Recording } from '../../src/recording/schema.ts'
import { agentOutput, refOf, scriptedModel } from '../support/models/scripted-model.ts'
import { type PageServer, startPageServer } from '../support/page-server.ts'
import { doneOf, ofType } from '../support/run.ts'

// A run with an output schema, recorded and replayed in real Chromium: the steps replay without the model,
// then exactly one model call reads the data off the final page.

const counterPage = `<!doctype html><title>Counter</title>
<h1>Counter</h1><p id="count">Count: 0</p>
<button onclick="document.getElementById('count').textContent = 'Count: ' + (++window.n)">Add</button>
<script>window.n = 0</script>`

const Count = z.object({ count: z.number().int() })
let server: PageServer
let url: string
let recording: Recording

async function collect(run: AsyncGenerator<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = []
  for await (const event of run) events.push(event)
  return events
}

/** A model that answers only structured-output calls, with the count it reads in the prompt. */
function readingModel() {
  return new MockLanguageModelV4({
    doGenerate: async (options) => {
      const count = /Count: (\d+)/.exec(JSON.stringify(options.prompt))?.[1]
      return {
        content: [{ type: 'text', text: JSON.stringify({ count: Number(count) }) }],
        finishReason: { unified: 'stop', raw: undefined },
        usage: {
          inputTokens: { total: 80, noCache: 80, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: 10, text: 10, reasoning: undefined },
        },
        warnings: [],
      }
    },
  })
}

beforeAll(async () => {
  server = await startPageServer({ pages: { '/': counterPage } })
  url = `${server.url}/`
  const model = scriptedModel([
    (prompt) => ({ output: agentOutput({ click: { ref: refOf(prompt, 'button', 'Add') } }, 'Add one') }),
    { output: agentOutput({ done: { text: 'The count is 1.', success: true, data: { count: 1 } } }) },
  ])
  const events = await collect(
    runAgent({ task: 'Click Add once; report the count', startUrl: url, model, output: Count }),
  )
  expect(doneOf(events).result.data).toEqual({ count: 1 })
  recording = recordingOf(events)
})
afterAll(() => server?.close())

test('the recording keeps the output schema', () => {
  expect(recording.output).toMatchObject({ type: 'object', properties: { count: { type: 'integer' } } })
})

test('the Playwright export ends with a comment that the data is not extracted', () => {
  const spec = playwrightSpec(recording)
  expect(spec).toMatch(/\/\/ The run's data \(its output schema\) is not extracted here.*\n\}\)\n$/)
})

test('a replay replays the steps without the model, then one model call reads the data off the final page', async () => {
  const model = readingModel()
  const events = await collect(runAgent({ replay: recording, model }))
  expect(model.doGenerateCalls).toHaveLength(1)
  expect(model.doStreamCalls).toHaveLength(0)
  expect(ofType(events, 'tool_call_start').map((call) => [call.tool, call.source])).toEqual([
    ['click', 'replay'],
  ])
  expect(ofType(events, 'usage')).toHaveLength(1)
  expect(doneOf(events)).toMatchObject({
    reason: 'model_stop',
    result: { success: true, data: { count: 1 } },
    replay: { replayed: 1, healed: 0, modelSteps: 1 },
  })
})

test('without a model, the replay ends error saying the data needs one', async () => {
  const events = await collect(runAgent({ replay: recording }))
  expect(doneOf(events)).toMatchObject({ reason: 'error', result: { success: false } })
  expect(doneOf(events).result.text).toContain('no model is configured')
  expect(doneOf(events).result.data).toBeUndefined()
})
