import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { unzipSync } from 'fflate'
import { describe, expect, test } from 'vitest'
import { AgentEventSchema } from '../../src/events/events.ts'
import type { StoredRun } from '../../src/store/run-store.ts'
import { SqliteRunStore } from '../../src/store/sqlite-store.ts'
import { readSse } from '../server/support.ts'
import { doneTurn, navigateTurn, promptText } from '../support/models/fake-openai.ts'
import { until } from '../support/until.ts'
import { useBrowserServer } from './browser-server.ts'
import { useScriptedCli } from './scripted-cli.ts'
import { startCli } from './support.ts'

// The CLI's stored runs and its server, as a user runs them without a terminal: real processes, real
// Chromium, real SQLite; the model is a fake provider whose answers follow a script per task. `sextant run`
// is cli.test.ts's (one file was the suite's longest, and its tail), the terminal terminal.test.ts's.

const scripted = useScriptedCli('sextant-cli-')
const { dir, script } = scripted
// No test here is about the launch: each CLI process connects to the file's one Chromium.
const browser = useBrowserServer()
const env = (db?: string): NodeJS.ProcessEnv => ({ ...scripted.env(db), ...browser.env() })

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
