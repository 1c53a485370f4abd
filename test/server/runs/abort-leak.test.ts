import { execFileSync } from 'node:child_process'
import { setTimeout as sleep } from 'node:timers/promises'
import { type Browser, type BrowserServer, chromium } from 'playwright-core'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { runAgent } from '../../../src/agent/loop.ts'
import type { BrowserSessionFactory } from '../../../src/browser/browser-session.ts'
import { startSession } from '../../../src/browser/session/playwright-session.ts'
import { sessionContextOptions } from '../../../src/browser/session/session-context.ts'
import { type SextantServer, startServer } from '../../../src/server/server.ts'
import { SqliteRunStore } from '../../../src/store/sqlite-store.ts'
import { AbortError } from '../../../src/tool.ts'
import { type FakeOpenAI, startFakeOpenAI } from '../../support/models/fake-openai.ts'
import { until } from '../../support/until.ts'
import { capturingLogger, postRun, runIdOf } from '../support.ts'

// A run DELETEd while its browser is still opening must not leave a context (and its renderer
// processes) behind: 20 runs, each aborted at a different moment of its first 200 ms.

let browserServer: BrowserServer
let browser: Browser
let fake: FakeOpenAI
let server: SextantServer
const store = new SqliteRunStore(':memory:')

/** The launcher pool's factory, on a browser this test can count the contexts of. */
const newSession: BrowserSessionFactory = async (options, signal) => {
  const context = await browser.newContext(sessionContextOptions(options))
  if (signal.aborted) {
    await context.close().catch(() => {})
    throw new AbortError()
  }
  return startSession(context, options, signal)
}

/** Renderer processes under the browser's process, from the process table. */
function rendererCount(): number {
  const rootPid = browserServer.process().pid
  const table = execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' })
  const rows = table
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((match): match is RegExpExecArray => match !== null)
    .map(([, pid, ppid, args]) => ({ pid: Number(pid), ppid: Number(ppid), args: args ?? '' }))
  const inTree = new Set([rootPid])
  for (let grew = true; grew; ) {
    grew = false
    for (const row of rows) {
      if (!inTree.has(row.pid) && inTree.has(row.ppid)) {
        inTree.add(row.pid)
        grew = true
      }
    }
  }
  return rows.filter((row) => inTree.has(row.pid) && row.args.includes('--type=renderer')).length
}

beforeAll(async () => {
  browserServer = await chromium.launchServer({ executablePath: '/usr/bin/chromium' })
  browser = await chromium.connect(browserServer.wsEndpoint())
  // The model never answers: every run is still at its start when it is deleted.
  fake = await startFakeOpenAI({ fallback: () => ({ hang: true }) })
  const { log } = capturingLogger()
  server = await startServer({
    config: {
      host: '127.0.0.1',
      port: 0,
      maxRuns: 4,
      maxTurns: 5,
      model: 'fake/agent-model',
      baseUrl: fake.baseUrl,
    },
    store,
    browser: newSession,
    runAgent,
    log,
  })
})

afterAll(async () => {
  await server?.close()
  await fake?.close()
  await browser?.close()
  await browserServer?.close()
  await store.close()
})

test('runs deleted during their first 200 ms leave no browser context or renderer behind', async () => {
  const renderersBefore = rendererCount()
  for (let i = 0; i < 20; i++) {
    const response = await postRun(server.url, { task: `Run ${i}` })
    expect(response.status).toBe(200)
    const id = runIdOf(response)
    await sleep(i * 10)
    const deleted = await fetch(`${server.url}/v1/runs/${id}`, { method: 'DELETE' })
    expect(deleted.status).toBe(200)
    expect(await deleted.json()).toMatchObject({ status: 'stopped' })
    await response.body?.cancel()
  }
  await until(() => server.manager.liveCount === 0, { what: 'every run to end' })
  await until(() => browser.contexts().length === 0, {
    what: `the runs' contexts to close (${browser.contexts().length} open)`,
    timeoutMs: 10_000,
  })
  await until(() => rendererCount() <= renderersBefore, {
    what: `the renderers to exit (${rendererCount()} running, ${renderersBefore} before)`,
    timeoutMs: 10_000,
  })
})
