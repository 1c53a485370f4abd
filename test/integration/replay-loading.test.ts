import { afterAll, beforeAll, expect, test } from 'vitest'
import type { BrowserPool } from '../../src/browser/launch/launcher.ts'
import { recordingOf } from '../../src/index.ts'
import { testPool } from '../browser/helpers/harness.ts'
import { agentOutput, refOf, scriptedModel } from '../support/models/scripted-model.ts'
import { type PageServer, startPageServer } from '../support/page-server.ts'
import { collect, doneOf } from '../support/run.ts'

// A replay starts on a page that has only committed: its field is parsed long before the script that
// handles it (here served 1 s late) has run. Its first step must wait for the page as an observation
// would; typing into the field before the script runs makes the Enter do nothing, and the step fails.

const todoPage = `<!doctype html><title>Todos</title>
<input id="new" placeholder="What needs to be done?"><ul id="list"></ul>
<script src="/app.js"></script>`

const appScript = `document.getElementById('new').addEventListener('keydown', (event) => {
  if (event.key !== 'Enter') return
  const item = document.createElement('li')
  item.textContent = event.target.value
  document.getElementById('list').append(item)
  event.target.value = ''
})`

// A button the page adds `late` ms after it loads (at once without ?late).
const latePage = `<!doctype html><title>Late</title><p id="out"></p>
<script>
  const add = () => {
    const button = document.createElement('button')
    button.textContent = 'Go'
    button.onclick = () => { document.getElementById('out').textContent = 'Went' }
    document.body.append(button)
  }
  const late = Number(new URLSearchParams(location.search).get('late') ?? 0)
  if (late > 0) setTimeout(add, late)
  else add()
</script>`

let server: PageServer
/** One browser for the file's runs, each in a context of its own: no test here is about a launch. */
let pool: BrowserPool

beforeAll(async () => {
  pool = testPool()
  server = await startPageServer({
    pages: { '/': todoPage, '/late': latePage },
    routes: {
      '/app.js': (_request, response) => {
        setTimeout(() => response.writeHead(200, { 'content-type': 'text/javascript' }).end(appScript), 1000)
      },
    },
  })
})

afterAll(async () => {
  await pool?.close()
  await server?.close()
})

test('a replay types into a field only once the page that handles it has loaded', async () => {
  const model = scriptedModel([
    (prompt) => ({
      output: agentOutput(
        { type: { ref: refOf(prompt, 'textbox', 'What needs to be done?'), text: 'Buy milk', submit: true } },
        'adding',
      ),
    }),
    () => ({ output: agentOutput({ done: { text: 'Added.', success: true } }) }),
  ])
  const events = await collect({
    task: 'Add Buy milk',
    startUrl: `${server.url}/`,
    model,
    browser: pool.newSession,
  })
  expect(doneOf(events)).toMatchObject({ reason: 'model_stop' })
  const recording = recordingOf(events)
  expect(recording.steps[0]?.expect).toContainEqual({ kind: 'appeared', text: 'Buy milk' })

  const replayed = await collect({ replay: recording, startUrl: `${server.url}/`, browser: pool.newSession })
  expect(doneOf(replayed)).toMatchObject({ reason: 'model_stop', result: { success: true } })
}, 60_000)

test('a replay waits replayWaitMs for a recorded element that is late, and no longer', async () => {
  const model = scriptedModel([
    (prompt) => ({ output: agentOutput({ click: { ref: refOf(prompt, 'button', 'Go') } }, 'going') }),
    () => ({ output: agentOutput({ done: { text: 'Went.', success: true } }) }),
  ])
  const events = await collect({
    task: 'Press Go',
    startUrl: `${server.url}/late`,
    model,
    browser: pool.newSession,
  })
  expect(doneOf(events)).toMatchObject({ reason: 'model_stop' })
  const recording = recordingOf(events)
  expect(recording.steps[0]).toMatchObject({ tool: 'click', target: { role: 'button', name: 'Go' } })

  // The button comes 2.5 s after the page: within the default wait it is found and pressed;
  // with no wait the step is called changed, and without a model the replay ends naming it.
  const lateUrl = `${server.url}/late?late=2500`
  const waited = await collect({ replay: recording, startUrl: lateUrl, browser: pool.newSession })
  expect(doneOf(waited)).toMatchObject({ reason: 'model_stop', replay: { replayed: 2, healed: 0 } })
  const hurried = await collect({
    replay: recording,
    startUrl: lateUrl,
    replayWaitMs: 0,
    browser: pool.newSession,
  })
  expect(doneOf(hurried)).toMatchObject({ reason: 'error', result: { success: false } })
  expect(doneOf(hurried).result.text).toContain("No button 'Go' is on the page.")
}, 60_000)
