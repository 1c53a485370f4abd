import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { runAgent } from '../../src/index.ts'
import { killChromiumChildren } from '../support/kill-chromium.ts'
import { agentOutput, refOf, type ScriptedResponse, scriptedModel } from '../support/models/scripted-model.ts'
import { type PageServer, startPageServer } from '../support/page-server.ts'
import { doneOf, ofType } from '../support/run.ts'

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

/**
 * A model that clicks Add until the count is 1, then reports it; it answers
 * `wait` when the page cannot be seen. Its first answer, and its answer to
 * each prompt in `killOn`, kills the run's Chromium first.
 */
function countingModel(killOn: (prompt: string, call: number) => boolean) {
  let call = 0
  return scriptedModel([], {
    afterScript: (prompt): ScriptedResponse => {
      call++
      if (killOn(prompt, call)) expect(killChromiumChildren()).not.toEqual([])
      const count = /Count: (\d+)/.exec(prompt)?.[1]
      if (count === '1') return { output: agentOutput({ done: { text: 'The count is 1.', success: true } }) }
      if (count === '0') return { output: agentOutput({ click: { ref: refOf(prompt, 'button', 'Add') } }) }
      return { output: agentOutput({ wait: { seconds: 1 } }) }
    },
  })
}

const restartNote = 'This run was given a fresh browser'

describe('a run whose Chromium dies mid-run', () => {
  test('gets a fresh browser once, at the page it was on, and the model is told what was lost', async () => {
    const model = countingModel((_, call) => call === 1)
    const events = []
    for await (const event of runAgent({
      task: 'Click Add once and report the count',
      startUrl: url,
      model,
    })) {
      events.push(event)
    }
    const restarted = ofType(events, 'warning').filter((warning) => warning.code === 'browser_restarted')
    expect(restarted).toHaveLength(1)
    expect(restarted[0]?.message).toContain('The browser process exited.')
    expect(restarted[0]?.message).toContain(`reopened at ${url}`)
    const told = model.prompts().filter((prompt) => prompt.includes(restartNote))
    expect(told).toHaveLength(1)
    expect(told[0]).toContain('any login')
    expect(ofType(events, 'observation').at(-1)).toMatchObject({ url, title: 'Counter' })
    expect(doneOf(events)).toMatchObject({
      reason: 'model_stop',
      result: { success: true, text: 'The count is 1.' },
    })
  })

  test('dies again: the run ends with error, naming the browser exit', async () => {
    const model = countingModel((prompt, call) => call === 1 || prompt.includes(restartNote))
    const events = []
    for await (const event of runAgent({
      task: 'Click Add once and report the count',
      startUrl: url,
      model,
    })) {
      events.push(event)
    }
    expect(ofType(events, 'warning').filter((warning) => warning.code === 'browser_restarted')).toHaveLength(
      1,
    )
    const done = doneOf(events)
    expect(done).toMatchObject({ reason: 'error', result: { success: false } })
    expect(done.result.text).toMatch(
      /^The browser process exited\. The run had already been given a fresh browser once/,
    )
  })
})
