import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { runAgent } from '../../src/index.ts'
import { type PageServer, startPageServer } from '../support/page-server.ts'
import { doneOf, ofType } from '../support/run.ts'
import { agentOutput, refOf, scriptedModel } from '../support/scripted-model.ts'

const counterPage = `<!doctype html><title>Counter</title>
<h1>Counter</h1><p id="count">Count: 0</p>
<button onclick="document.getElementById('count').textContent = 'Count: ' + (++window.n)">Add</button>
<script>window.n = 0</script>`

let server: PageServer
let url: string

beforeAll(async () => {
  server = await startPageServer({ pages: { '/': counterPage } })
  url = `${server.url}/`
})

afterAll(() => server.close())

describe('runAgent with its own Chromium', () => {
  test('launches a browser, acts on the page through stable refs, and closes it', async () => {
    const prompts: string[] = []
    const model = scriptedModel([
      (prompt) => {
        prompts.push(prompt)
        return { output: agentOutput({ click: { ref: refOf(prompt, 'button', 'Add') } }, 'clicking Add') }
      },
      (prompt) => {
        prompts.push(prompt)
        const count = /Count: (\d+)/.exec(prompt)?.[1] ?? '?'
        return { output: agentOutput({ done: { text: `The count is ${count}.`, success: true } }) }
      },
    ])
    const events = []
    for await (const event of runAgent({
      task: 'Click Add once and report the count',
      startUrl: url,
      model,
    })) {
      events.push(event)
    }
    expect(ofType(events, 'observation')[0]).toMatchObject({ url, title: 'Counter' })
    expect(ofType(events, 'tool_call_result')[0]).toMatchObject({ ok: true })
    expect(doneOf(events)).toMatchObject({
      reason: 'model_stop',
      result: { success: true, text: 'The count is 1.' },
    })
    // The same button keeps its ref from one step to the next.
    expect(refOf(prompts[1]!, 'button', 'Add')).toBe(refOf(prompts[0]!, 'button', 'Add'))
  })
})
