import { afterAll, beforeAll, expect, test } from 'vitest'
import { recordingOf } from '../../src/index.ts'
import { agentOutput, refOf, scriptedModel } from '../support/models/scripted-model.ts'
import { type PageServer, startPageServer } from '../support/page-server.ts'
import { collect, doneOf } from '../support/run.ts'

// A run ends only after the page finished what its last action set off: here a Save button posts to
// the server 300 ms after the click (a debounce). The run's last step is that click, then `done`, so
// nothing of the run waits for the POST; before the browser closes, it must have reached the server,
// in the model's run and in a replay of it (which reaches `done` the moment the click is replayed).

const savePage = `<!doctype html><title>Notes</title>
<h1>Notes</h1><p id="state">Unsaved</p>
<button onclick="clearTimeout(window.t); window.t = setTimeout(() => fetch('/save', { method: 'POST', body: 'note' }), 300)">Save</button>`

let server: PageServer
let saves = 0

beforeAll(async () => {
  server = await startPageServer({
    pages: { '/': savePage },
    routes: {
      '/save': (request, response) => {
        request.resume()
        request.on('end', () => {
          saves++
          response.writeHead(204).end()
        })
      },
    },
  })
})

afterAll(() => server?.close())

test('a debounced save set off by the last action reaches the server, in the run and in its replay', async () => {
  const model = scriptedModel([
    (prompt) => ({ output: agentOutput({ click: { ref: refOf(prompt, 'button', 'Save') } }, 'saving') }),
    // Answered at once: the run reaches done well inside the page's 300 ms debounce.
    () => ({ output: agentOutput({ done: { text: 'Saved.', success: true } }) }),
  ])
  const events = await collect({ task: 'Save the note', startUrl: `${server.url}/`, model })
  expect(doneOf(events)).toMatchObject({ reason: 'model_stop' })
  expect(saves).toBe(1)

  const replayed = await collect({ replay: recordingOf(events), startUrl: `${server.url}/` })
  expect(doneOf(replayed)).toMatchObject({ reason: 'model_stop', result: { success: true } })
  expect(saves).toBe(2)
}, 60_000)
