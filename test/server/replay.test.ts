import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { playwrightSpec } from '../../src/agent/tools/actions.ts'
import type { AgentEvent } from '../../src/events/events.ts'
import type { Recording } from '../../src/recording/schema.ts'
import { startCli } from '../cli/support.ts'
import { type FakeOpenAI, startFakeOpenAI } from '../support/models/fake-openai.ts'
import { playwrightTest, specFolder, tscOutput } from '../support/spec-check.ts'
import { latestView, serveTodoApp, todoTask, todoTurn } from '../support/todo-flow.ts'
import { events, type Harness, json, postRun, readSse, runIdOf, startHarness } from './support.ts'

// Record once through the API with a model, then replay through the API without one.

let fake: FakeOpenAI
let harness: Harness
let recorded: Recording
let recordedRunId: string
/** The todo the model is currently asked to add (the fake model reads it from here). */
const todo = 'Buy milk'

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sextant-replay-'))
  fake = await startFakeOpenAI({ fallback: (request) => todoTurn(latestView(request), todo) })
  harness = await startHarness({ fake, browser: 'chromium' })
  const app = await serveTodoApp('original')
  try {
    const response = await postRun(harness.url, {
      task: todoTask,
      variables: { todo: 'Buy milk' },
      startUrl: app.appUrl,
    })
    recordedRunId = runIdOf(response)
    const list = events(await readSse(response))
    expect(list.at(-1)).toMatchObject({ type: 'done', reason: 'model_stop', result: { success: true } })
    recorded = await json<Recording>(await fetch(`${harness.url}/v1/runs/${recordedRunId}/recording`))
  } finally {
    await app.close()
  }
}, 120_000)

let dir: string

afterAll(async () => {
  await harness?.close()
  await fake?.close()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

test('a run yields its recording: targets, templates, expectations', () => {
  expect(recorded).toMatchObject({ version: 1, task: todoTask, variables: { todo: 'Buy milk' } })
  const steps = recorded.steps.filter((step) => step.skip === undefined)
  expect(steps.map((step) => step.tool)).toEqual(['type', 'type', 'click', 'click', 'done'])
  expect(steps[0]).toMatchObject({
    input: { text: '{{todo}}', submit: true },
    target: { role: 'textbox', name: 'What needs to be done?', tag: 'input', attributes: { id: 'new-todo' } },
    expect: [{ kind: 'appeared', text: '{{todo}}' }],
    goal: 'Add the todo {{todo}}.',
  })
  // The checkbox has no name: its list item tells it from the other todo's.
  expect(steps[2]?.target).toMatchObject({
    role: 'checkbox',
    name: '',
    context: [{ role: 'listitem', label: '{{todo}} ✖' }],
  })
  expect(steps[3]?.target).toMatchObject({ role: 'button', name: 'Clear completed (1)' })
  expect(steps[3]?.expect).toEqual([{ kind: 'gone' }])
})

async function replay(body: Record<string, unknown>): Promise<AgentEvent[]> {
  const response = await postRun(harness.url, body)
  expect(response.status).toBe(200)
  return events(await readSse(response))
}

test('1. a replay against a fresh app makes no model call', async () => {
  const app = await serveTodoApp('original')
  try {
    fake.requests.length = 0
    const list = await replay({ replay: recordedRunId, startUrl: app.appUrl })
    expect(fake.requests).toHaveLength(0)
    const done = list.at(-1)
    expect(done).toMatchObject({
      type: 'done',
      reason: 'model_stop',
      result: { success: true, text: 'Added Buy milk and Walk dog; Buy milk was done and cleared.' },
      usage: { totalTokens: 0 },
      replay: { replayed: 5, healed: 0, modelSteps: 0 },
    })
    const calls = list.filter((event) => event.type === 'tool_call_start')
    expect(calls.map((call) => call.type === 'tool_call_start' && call.source)).toEqual(
      Array(5).fill('replay'),
    )
    expect(list.some((event) => event.type === 'usage')).toBe(false)
  } finally {
    await app.close()
  }
})

test('2. a replay with a variable changed types and completes the other todo', async () => {
  const app = await serveTodoApp('original')
  try {
    fake.requests.length = 0
    const list = await replay({ replay: recorded, variables: { todo: 'Buy bread' }, startUrl: app.appUrl })
    expect(fake.requests).toHaveLength(0)
    expect(list[0]).toMatchObject({ type: 'run_started', task: todoTask, variables: { todo: 'Buy bread' } })
    const typed = list.flatMap((event) =>
      event.type === 'tool_call_start' && event.tool === 'type' ? [event.input] : [],
    )
    expect(typed).toMatchObject([{ text: 'Buy bread' }, { text: 'Walk dog' }])
    // The checkbox is found by its list item, now "Buy bread"; the expectations checked it appeared and was cleared.
    expect(list.at(-1)).toMatchObject({
      type: 'done',
      reason: 'model_stop',
      result: { success: true, text: 'Added Buy bread and Walk dog; Buy bread was done and cleared.' },
      replay: { replayed: 5, healed: 0, modelSteps: 0 },
    })
  } finally {
    await app.close()
  }
})

test('2b. a replay stops at maxTurns like a model run: max_turns after that many replayed steps', async () => {
  const app = await serveTodoApp('original')
  try {
    fake.requests.length = 0
    const list = await replay({ replay: recordedRunId, startUrl: app.appUrl, maxTurns: 2 })
    expect(fake.requests).toHaveLength(0)
    expect(list.filter((event) => event.type === 'tool_call_start')).toHaveLength(2)
    expect(list.at(-1)).toMatchObject({
      type: 'done',
      reason: 'max_turns',
      steps: 2,
      result: { success: false },
      replay: { replayed: 2 },
    })
  } finally {
    await app.close()
  }
})

test('3. the exported Playwright spec passes tsc and playwright test against the app, and so does one whose variables are named class, process or target', async () => {
  const spec = playwrightSpec(recorded, { executablePath: '/usr/bin/chromium' })
  expect(spec).toContain("page.getByRole('listitem').filter({ hasText: todo }).getByRole('checkbox')")
  // The todo is now `{{target}}`, which each step's own `const target` (the locator) would shadow.
  const renamed = JSON.parse(JSON.stringify(recorded).replaceAll('{{todo}}', '{{target}}')) as Recording
  const renamedSpec = playwrightSpec(
    { ...renamed, variables: { target: 'Buy milk', class: 'unused', process: 'unused' } },
    { executablePath: '/usr/bin/chromium' },
  )
  expect(renamedSpec).toContain("const targetValue = process.env['target'] ?? 'Buy milk'")
  // Both in one tsc program and one `playwright test` run (each costs a process, the run a browser);
  // the app keeps its todos in the page, so each spec's own browser context starts it fresh.
  const app = await serveTodoApp('original')
  const folder = specFolder(spec)
  const renamedFile = join(folder.dir, 'renamed.spec.ts')
  writeFileSync(renamedFile, renamedSpec)
  try {
    expect(tscOutput(folder.dir, folder.file, renamedFile), 'tsc').toBe('')
    const run = await playwrightTest(folder, { ...process.env, START_URL: app.appUrl }, [renamedFile])
    expect(run.output).toMatch(/2 passed/)
    expect(run.status).toBe(0)
  } finally {
    folder.remove()
    await app.close()
  }
}, 90_000)

function cliEnv(model: boolean): NodeJS.ProcessEnv {
  return {
    SEXTANT_MODEL: model ? 'fake/heal-model' : '',
    SEXTANT_BASE_URL: fake.baseUrl,
    SEXTANT_DB: join(dir, 'cli.db'),
    SEXTANT_RUNS_DIR: join(dir, 'runs'),
    // The changed app's renamed button is never coming: 2 s tells it as well as the default 8 s.
    SEXTANT_REPLAY_WAIT_MS: '2000',
  }
}

function jsonEvents(stdout: string): AgentEvent[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as AgentEvent)
}

test('4. on a changed app the model heals exactly the changed step, and --save replays it without the model', async () => {
  const app = await serveTodoApp('changed')
  try {
    const file = join(dir, 'todo.json')
    const saved = join(dir, 'healed.json')
    writeFileSync(file, JSON.stringify(recorded))
    fake.requests.length = 0
    const healing = startCli(['replay', file, '--url', app.appUrl, '--save', saved, '--json'], cliEnv(true))
    expect(await healing.exited, healing.stderr()).toBe(0)
    const list = jsonEvents(healing.stdout())
    // One model call: the renamed button's step; the field in front of the input did not disturb its step.
    expect(fake.requests).toHaveLength(1)
    const warnings = list.filter((event) => event.type === 'warning' && event.code === 'replay_healing')
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatchObject({
      message: expect.stringContaining("step 4 (click button 'Clear completed (1)')"),
    })
    const sources = list.flatMap((event) =>
      event.type === 'tool_call_start' ? [`${event.tool}:${event.source}`] : [],
    )
    expect(sources).toEqual(['type:replay', 'type:replay', 'click:replay', 'click:model', 'done:replay'])
    expect(list.at(-1)).toMatchObject({
      type: 'done',
      reason: 'model_stop',
      result: { success: true },
      replay: { replayed: 4, healed: 1, modelSteps: 1 },
    })

    const healed: Recording = JSON.parse(readFileSync(saved, 'utf8'))
    expect(healed.steps.filter((step) => !step.skip).map((step) => step.target?.name ?? step.tool)).toEqual([
      'What needs to be done?',
      'What needs to be done?',
      '',
      'Remove finished (1)',
      'done',
    ])
    const check = startCli(['recording', 'check', saved], cliEnv(false))
    expect(await check.exited).toBe(0)
    expect(check.stdout()).toContain('valid recording (version 1): 5 steps to replay; variables: todo')
    // The healed run is stored: its recording exports as a spec with the new button.
    const healedRunId = list[0]?.runId ?? ''
    const exported = startCli(['runs', 'export', healedRunId, '--format', 'playwright'], cliEnv(false))
    expect(await exported.exited, exported.stderr()).toBe(0)
    expect(exported.stdout()).toContain(
      "page.getByRole('button', { name: 'Remove finished (1)', exact: true })",
    )

    fake.requests.length = 0
    const again = startCli(['replay', saved, '--url', app.appUrl, '--json'], cliEnv(false))
    expect(await again.exited, again.stderr()).toBe(0)
    expect(fake.requests).toHaveLength(0)
    expect(jsonEvents(again.stdout()).at(-1)).toMatchObject({
      reason: 'model_stop',
      replay: { replayed: 5, healed: 0, modelSteps: 0 },
    })
  } finally {
    await app.close()
  }
}, 90_000)

test('5. without a model, a replay on the changed app ends with an error naming the step', async () => {
  const app = await serveTodoApp('changed')
  try {
    const file = join(dir, 'todo-5.json')
    writeFileSync(file, JSON.stringify(recorded))
    const cli = startCli(['replay', file, '--url', app.appUrl, '--json'], cliEnv(false))
    expect(await cli.exited).toBe(1)
    const done = jsonEvents(cli.stdout()).at(-1)
    expect(done).toMatchObject({ type: 'done', reason: 'error', result: { success: false } })
    expect(done?.type === 'done' && done.result.text).toBe(
      "The replay failed at step 4 (click button 'Clear completed (1)'): No button 'Clear completed (1)' is on the page. No model is configured to redo the step.",
    )
  } finally {
    await app.close()
  }
}, 60_000)

test('DELETE during a replay ends it with user_abort', async () => {
  const app = await serveTodoApp('original')
  try {
    const response = await postRun(harness.url, { replay: recordedRunId, startUrl: app.appUrl })
    const id = runIdOf(response)
    let deleting: Promise<Response> | undefined
    const list = events(
      await readSse(response, (message) => {
        const event: AgentEvent = message.data
        if (event.type === 'tool_call_result' && !deleting)
          deleting = fetch(`${harness.url}/v1/runs/${id}`, { method: 'DELETE' })
        return false
      }),
    )
    expect((await deleting)?.status).toBe(200)
    expect(list.at(-1)).toMatchObject({ type: 'done', reason: 'user_abort' })
    expect(list.filter((event) => event.type === 'tool_call_start').length).toBeLessThan(5)
  } finally {
    await app.close()
  }
})
