import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { AgentEventSchema } from '../../src/events/events.ts'
import { SqliteRunStore } from '../../src/store/sqlite-store.ts'
import { actionTurn, doneTurn, navigateTurn, promptText } from '../support/models/fake-openai.ts'
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
