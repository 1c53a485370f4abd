import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { unzipSync } from 'fflate'
import { describe, expect, test } from 'vitest'
import { AgentEventSchema } from '../../src/events/events.ts'
import type { StoredRun } from '../../src/store/run-store.ts'
import { SqliteRunStore } from '../../src/store/sqlite-store.ts'
import { readSse } from '../server/support.ts'
import { actionTurn, doneTurn, navigateTurn, promptText } from '../support/models/fake-openai.ts'
import { until } from '../support/until.ts'
import { useBrowserServer } from './browser-server.ts'
import { useScriptedCli } from './scripted-cli.ts'
import { startCli } from './support.ts'

// The CLI as a user runs it, without a terminal: real processes, real Chromium, real SQLite; the model is
// a fake provider whose answers follow a script per task. The terminal's own tests are in terminal.test.ts.

const scripted = useScriptedCli('sextant-cli-')
const { dir, script } = scripted
// No test here is about the launch: each CLI process connects to the file's one Chromium.
const browser = useBrowserServer()
const env = (db?: string): NodeJS.ProcessEnv => ({ ...scripted.env(db), ...browser.env() })

describe('sextant run', () => {
  test('--json prints one valid event per line and exits 0 when the task succeeds; the run is recorded', async () => {
    const task = script(
      'Read the test page (json).',
      navigateTurn(scripted.page.url),
      doneTurn('The answer is 42.'),
    )
    const cli = startCli(['run', task, '--json', '--max-turns', '5'], env())
    expect(await cli.exited).toBe(0)
    const lines = cli.stdout().trim().split('\n')
    const events = lines.map((line) => AgentEventSchema.parse(JSON.parse(line)))
    expect(events[0]).toMatchObject({ type: 'run_started', task, model: 'fake/cli-model', maxTurns: 5 })
    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'model_stop', result: { success: true } })
    expect(events.some((event) => event.type === 'observation' && event.title === 'Sextant Test Page')).toBe(
      true,
    )

    const store = new SqliteRunStore(join(dir, 'cli.db'))
    const stored = await store.getRun(events[0]!.runId)
    expect(stored).toMatchObject({ status: 'completed', task, steps: 2 })
    // Streamed model text is live-only: the store keeps every other event, gapless.
    expect(await store.events(events[0]!.runId)).toEqual(
      events.filter((event) => event.type !== 'text_delta'),
    )
    await store.close()

    const list = startCli(['runs', '--limit', '5'], env())
    expect(await list.exited).toBe(0)
    expect(list.stdout()).toMatch(new RegExp(`${events[0]!.runId}\\s+completed\\s+2`))
    const show = startCli(['runs', 'show', events[0]!.runId], env())
    expect(await show.exited).toBe(0)
    expect(show.stdout()).toContain('The answer is 42.')
  })

  test('a task the model reports as failed exits 1; plain output without a terminal', async () => {
    const task = script('Give up at once.', doneTurn('Could not find it.', false))
    const cli = startCli(['run', task], env())
    expect(await cli.exited).toBe(1)
    expect(cli.stdout()).toContain('Step 1 of 40')
    expect(cli.stdout()).toContain('Finished without success')
    // No spinner or colour codes in a pipe.
    expect(cli.stdout()).not.toContain('\x1b[')
  })

  test('--output prints the valid data alone on stdout, the live view on stderr; runs show shows it', async () => {
    const schema = join(dir, 'answer.schema.json')
    writeFileSync(
      schema,
      JSON.stringify({ type: 'object', properties: { answer: { type: 'integer' } }, required: ['answer'] }),
    )
    const done = (data: unknown) => actionTurn('done', { text: 'Found it.', success: true, data })
    const task = script(
      'Read the answer (output).',
      navigateTurn(scripted.page.url),
      done({ answer: '42' }),
      done({ answer: 42 }),
    )
    const cli = startCli(['run', task, '--output', schema], env())
    expect(await cli.exited).toBe(0)
    expect(JSON.parse(cli.stdout())).toEqual({ answer: 42 })
    expect(cli.stderr()).toContain('does not match the output schema')
    expect(cli.stderr()).toContain('✔ Done')

    const store = new SqliteRunStore(join(dir, 'cli.db'))
    const [latest] = (await store.listRuns({ limit: 1 })).runs
    await store.close()
    const show = startCli(['runs', 'show', latest!.id], env())
    expect(await show.exited).toBe(0)
    expect(show.stdout()).toMatch(/data: \{\s+"answer": 42\s+\}/)
  })

  test('--output refuses a schema that is not one, naming the problem (exit 2)', async () => {
    const schema = join(dir, 'broken.schema.json')
    writeFileSync(schema, JSON.stringify({ type: 'object', required: 'answer' }))
    const cli = startCli(['run', 'anything', '--output', schema], env())
    expect(await cli.exited).toBe(2)
    expect(cli.stderr()).toContain('output/required must be array')
  })

  test('--output refuses a recursive, an over-deep or an unrunnable-pattern schema (exit 2)', async () => {
    let deep: Record<string, unknown> = { type: 'string' }
    for (let i = 0; i < 1000; i++) deep = { type: 'array', items: deep }
    for (const [name, schema, problem] of [
      ['self', { $ref: '#' }, '"output" has a recursive $ref'],
      ['deep', deep, '"output" is nested deeper than 64 levels'],
      ['pattern', { type: 'string', pattern: '(a)\\1' }, 'The pattern "(a)\\\\1" cannot be used'],
    ] as const) {
      const file = join(dir, `${name}.schema.json`)
      writeFileSync(file, JSON.stringify(schema))
      const cli = startCli(['run', 'anything', '--output', file], env())
      expect(await cli.exited).toBe(2)
      expect(cli.stderr()).toContain(problem)
    }
  })

  test('without a terminal, confirmations are denied and ask_user is not offered', async () => {
    const task = script(
      'Try JavaScript without a terminal.',
      actionTurn('execute_javascript', { script: 'return 1' }),
      doneTurn('Could not run it.', false),
    )
    const cli = startCli(['run', task, '--json'], env())
    expect(await cli.exited).toBe(1)
    const events = cli
      .stdout()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(events.find((event) => event.type === 'confirmation_resolved')).toMatchObject({
      approved: false,
      by: 'policy',
    })
    const request = scripted.fake.requests.find((candidate) => promptText(candidate).includes(task))!
    expect(JSON.stringify(request.body.tools)).not.toContain('ask_user')
  })

  test.each([
    [['run'], /needs a task/],
    [['run', 'x', '--max-turns', 'many'], /--max-turns: expected an integer/],
    [['run', 'x', '--url', 'ftp://example.com'], /--url must be an http\(s\) URL/],
    [['run', 'x', '--nope'], /Unknown option '--nope'/],
    [['fly'], /Unknown command "fly"/],
  ])('sextant %j exits 2 with a clear message', async (args, message) => {
    const cli = startCli(args, env())
    expect(await cli.exited).toBe(2)
    expect(cli.stderr()).toMatch(message)
  })

  test.each([
    [{ SEXTANT_MODEL: '' }, /No model configured/],
    [{ SEXTANT_MODEL: 'acme/x', SEXTANT_BASE_URL: '' }, /Unknown model provider "acme"/],
    [{ SEXTANT_MODEL: 'openai/gpt-4.1-mini', SEXTANT_BASE_URL: '' }, /needs an API key/],
  ])('a model that cannot be used (%j) exits 2 before any browser starts', async (overrides, message) => {
    const cli = startCli(['run', 'x'], {
      ...scripted.env(),
      ...overrides,
      SEXTANT_CHROMIUM: '/nonexistent/chromium',
    })
    expect(await cli.exited).toBe(2)
    expect(cli.stderr()).toMatch(message)
    expect(cli.stderr()).not.toMatch(/chromium/i)
  })
})

describe('sextant runs', () => {
  test('run keeps step screenshots; runs prune deletes finished runs with their files, and refuses a bad age', async () => {
    const db = join(dir, 'prune.db')
    const task = script('Look, then be pruned.', navigateTurn(scripted.page.url), doneTurn('Seen.'))
    const cli = startCli(['run', task, '--json'], env(db))
    expect(await cli.exited, cli.stderr()).toBe(0)
    const id = AgentEventSchema.parse(JSON.parse(cli.stdout().split('\n')[0]!)).runId
    const steps = join(dir, 'runs', id, 'steps')
    expect(existsSync(join(steps, '1.jpg')) && existsSync(join(steps, '2.jpg'))).toBe(true)

    const bad = startCli(['runs', 'prune', '--older-than', 'soon'], env(db))
    expect(await bad.exited).toBe(2)
    expect(bad.stderr()).toContain('--older-than needs an age such as 30d')

    const kept = startCli(['runs', 'prune', '--older-than', '30d'], env(db))
    expect(await kept.exited, kept.stderr()).toBe(0)
    expect(kept.stdout()).toContain('Removed 0 runs')
    expect(existsSync(steps)).toBe(true)

    const pruned = startCli(['runs', 'prune', '--older-than', '0m', '--json'], env(db))
    expect(await pruned.exited, pruned.stderr()).toBe(0)
    expect(JSON.parse(pruned.stdout())).toMatchObject({ runs: [id], failures: [] })
    expect(existsSync(join(dir, 'runs', id))).toBe(false)
    const show = startCli(['runs', 'show', id], env(db))
    expect(await show.exited).toBe(1)
  })

  test('run --trace --har keeps them; runs export writes each, and says which the run did not keep; prune takes them', async () => {
    const db = join(dir, 'artifacts.db')
    const task = script('Look, traced.', navigateTurn(scripted.page.url), doneTurn('Seen.'))
    const cli = startCli(['run', task, '--json', '--trace', '--har'], env(db))
    expect(await cli.exited, cli.stderr()).toBe(0)
    const id = AgentEventSchema.parse(JSON.parse(cli.stdout().split('\n')[0]!)).runId
    expect(existsSync(join(dir, 'runs', id, 'artifacts', 'trace.zip'))).toBe(true)

    const zip = join(dir, `${id}.zip`)
    const trace = startCli(['runs', 'export', id, '--format', 'trace', '-o', zip], env(db))
    expect(await trace.exited, trace.stderr()).toBe(0)
    const entries = unzipSync(readFileSync(zip))
    const traced = new TextDecoder().decode(entries['trace.trace'])
    expect(traced).toContain('step 1: navigate')
    expect(traced).toContain(scripted.page.url)
    const har = startCli(['runs', 'export', id, '--format', 'har'], env(db))
    expect(await har.exited, har.stderr()).toBe(0)
    const pages = (JSON.parse(har.stdout()) as { log: { entries: { request: { url: string } }[] } }).log
      .entries
    expect(pages.map((entry) => entry.request.url)).toContain(scripted.page.url)
    const video = startCli(['runs', 'export', id, '--format', 'video', '-o', join(dir, 'none.webm')], env(db))
    expect(await video.exited).toBe(1)
    expect(video.stderr()).toContain(`Run "${id}" kept no video`)

    const pruned = startCli(['runs', 'prune', '--older-than', '0m', '--json'], env(db))
    expect(await pruned.exited, pruned.stderr()).toBe(0)
    expect(existsSync(join(dir, 'runs', id, 'artifacts'))).toBe(false)
  })

  test('marks a run whose `sextant run` died as failed, and never one live in another process', async () => {
    const db = join(dir, 'interrupted.db')
    const task = script('Think until killed.', { hang: true })
    const cli = startCli(['run', task, '--json'], env(db))
    const id = AgentEventSchema.parse(JSON.parse((await cli.waitFor('\n')).split('\n')[0]!)).runId
    await until(() => scripted.fake.requests.some((request) => promptText(request).includes(task)), {
      what: 'the run to ask the model',
    })
    const listed = async () => {
      const runs = startCli(['runs', '--json'], env(db))
      expect(await runs.exited, runs.stderr()).toBe(0)
      return (JSON.parse(runs.stdout()) as { runs: StoredRun[] }).runs.find((run) => run.id === id)
    }

    expect(await listed()).toMatchObject({ status: 'running' })
    cli.child.kill('SIGKILL')
    await cli.exited
    expect(await listed()).toMatchObject({
      status: 'failed',
      reason: 'error',
      result: { success: false, text: expect.stringMatching(/interrupted/) },
    })
  })

  test('a PostgreSQL SEXTANT_DB that does not answer is named in one line, its password hidden', async () => {
    const runs = startCli(['runs'], { SEXTANT_DB: 'postgres://sextant:hunter2@127.0.0.1:1/sextant' })
    expect(await runs.exited).toBe(1)
    expect(runs.stderr()).toMatch(
      /^sextant: Cannot open the PostgreSQL database postgres:\/\/sextant:\*\*\*@127\.0\.0\.1:1\/sextant \(SEXTANT_DB\): .*ECONNREFUSED.*\n$/,
    )
    expect(runs.stderr()).not.toContain('hunter2')
  })
})

describe('sextant serve', () => {
  test('answers over HTTP, then on SIGTERM aborts the live run, stores it and exits 0', async () => {
    const db = join(dir, 'serve.db')
    const server = startCli(['serve', '--port', '0'], { ...env(db), SEXTANT_LOG_LEVEL: 'info' })
    const url = /listening on (http:\/\/\S+)/.exec(
      await server.waitFor(/listening on http:\/\/\S+\n/, 'stderr'),
    )![1]!
    expect((await fetch(`${url}/healthz`)).status).toBe(200)

    const task = script('Stay busy until shutdown.', navigateTurn(scripted.page.url), { hang: true })
    const response = await fetch(`${url}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ task }),
    })
    const id = response.headers.get('location')!.split('/').at(-1)!
    const stream = readSse(response)
    await until(
      () => scripted.fake.requests.filter((request) => promptText(request).includes(task)).length >= 2,
    )

    server.child.kill('SIGTERM')
    expect(await server.exited).toBe(0)
    const events = (await stream).map((message) => message.data)
    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'user_abort' })

    const store = new SqliteRunStore(db)
    expect(await store.getRun(id)).toMatchObject({ status: 'stopped', reason: 'user_abort' })
    expect(await store.events(id)).toEqual(events.filter((event) => event.type !== 'text_delta'))
    await store.close()
    // One JSON log line per request and per run transition, with the run id.
    const logs = server
      .stderr()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(logs.some((line) => line.msg === 'request' && line.runId === id && line.status === 200)).toBe(true)
    expect(logs.some((line) => line.msg === 'run done' && line.runId === id)).toBe(true)
  })

  test('refuses a heartbeat not shorter than the lease at start (exit 2), naming both settings', async () => {
    const server = startCli(['serve', '--port', '0'], {
      ...env(join(dir, 'lease.db')),
      SEXTANT_HEARTBEAT_MS: '3000',
      SEXTANT_LEASE_MS: '3000',
    })
    expect(await server.exited).toBe(2)
    expect(server.stderr()).toMatch(
      /SEXTANT_HEARTBEAT_MS: is 3000 ms, not shorter than SEXTANT_LEASE_MS \(3000 ms\)/,
    )
  })

  test('refuses a non-loopback address without a token (exit 2)', async () => {
    const server = startCli(['serve', '--host', '0.0.0.0', '--port', '0'], env(join(dir, 'refused.db')))
    expect(await server.exited).toBe(2)
    expect(server.stderr()).toMatch(/SEXTANT_API_TOKEN/)
  })
})

describe('sextant run limits', () => {
  const costly = { usage: { promptTokens: 500_000, completionTokens: 100_000 } }

  test('--max-cost ends a priced run with budget_exceeded (exit 1); without a price it is refused (exit 2)', async () => {
    const prices = join(dir, 'prices.json')
    writeFileSync(prices, JSON.stringify({ models: { 'fake/cli-model': { input: 0.4, output: 1.6 } } }))
    const task = script('Spend a lot (cli).', actionTurn('wait', { seconds: 1 }, costly))
    const cli = startCli(['run', task, '--json', '--max-cost', '0.3'], { ...env(), SEXTANT_PRICES: prices })
    expect(await cli.exited).toBe(1)
    const done = JSON.parse(cli.stdout().trim().split('\n').at(-1) ?? '{}')
    expect(done).toMatchObject({ type: 'done', reason: 'budget_exceeded', costUsd: 0.36 })

    const refused = startCli(['run', 'Anything.', '--max-cost', '0.3'], env())
    expect(await refused.exited).toBe(2)
    expect(refused.stderr()).toContain('maxCostUsd needs a priced model, and fake/cli-model has no price')
  }, 90_000)

  test('--max-tokens ends a run with budget_exceeded (exit 1); --allow-domain is held to the run request schema (exit 2)', async () => {
    const task = script('Spend many tokens (cli).', actionTurn('wait', { seconds: 1 }, costly))
    const cli = startCli(['run', task, '--json', '--max-tokens', '1000'], env())
    expect(await cli.exited).toBe(1)
    const done = JSON.parse(cli.stdout().trim().split('\n').at(-1) ?? '{}')
    expect(done).toMatchObject({ type: 'done', reason: 'budget_exceeded', usage: { totalTokens: 600_000 } })

    const refused = startCli(['run', 'Anything.', '--allow-domain', ' '], env())
    expect(await refused.exited).toBe(2)
    expect(refused.stderr()).toContain("The run's options are not valid: allowedDomains.0:")
  }, 90_000)

  test('--max-duration takes a time with its unit and refuses anything else (exit 2)', async () => {
    const refused = startCli(['run', 'Anything.', '--max-duration', 'soon'], env())
    expect(await refused.exited).toBe(2)
    expect(refused.stderr()).toContain('--max-duration takes a time such as 90s, 10m or 1h')
  })
})
