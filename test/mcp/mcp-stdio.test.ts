import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { SqliteRunStore } from '../../src/store/sqlite-store.ts'
import { mainScript, repoRoot } from '../cli/support.ts'
import { startTestPage } from '../server/support.ts'
import { doneTurn, promptText } from '../support/models/fake-openai.ts'
import type { PageServer } from '../support/page-server.ts'
import { mcpScenarios } from './scenarios.ts'
import { callTool, connectClient, type ScriptedModel, startScriptedModel } from './support.ts'

let model: ScriptedModel
let page: PageServer
const dir = mkdtempSync(join(tmpdir(), 'sextant-mcp-'))
const db = join(dir, 'mcp.db')

beforeAll(async () => {
  model = await startScriptedModel()
  page = await startTestPage()
})
afterAll(async () => {
  await page?.close()
  await model?.fake.close()
  rmSync(dir, { recursive: true, force: true })
})

/** `sextant mcp` as a host starts it: a child process speaking MCP on stdin and stdout. */
function transport(): StdioClientTransport {
  return new StdioClientTransport({
    command: process.execPath,
    args: [mainScript, 'mcp'],
    cwd: repoRoot,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      SEXTANT_CHROMIUM: '/usr/bin/chromium',
      SEXTANT_MODEL: 'fake/mcp-model',
      SEXTANT_BASE_URL: model.fake.baseUrl,
      SEXTANT_DB: db,
      SEXTANT_RUNS_DIR: join(dir, 'runs'),
    },
    stderr: 'inherit',
  })
}

/**
 * One `sextant mcp` process for the tests whose client offers no elicitation, as a host keeps one for
 * its session: each process loads the CLI and launches Chromium, the tests' dearest part. A test's
 * close() leaves it open; the file closes it at the end. Elicitation needs a client that offers it.
 */
let shared: Promise<Client> | undefined
let sharedProcess: Client | undefined
function sharedClient(): Promise<Client> {
  shared ??= connectClient(transport()).then((client) => {
    sharedProcess = client
    return new Proxy(client, {
      get: (target, key) => {
        if (key === 'close') return async () => {}
        const value: unknown = Reflect.get(target, key, target)
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
  })
  return shared
}
// Registered after the file's other afterAll: it runs first, before the folder the process writes to goes.
afterAll(() => sharedProcess?.close())

describe('sextant mcp (stdio)', () => {
  mcpScenarios('stdio', () => ({
    model,
    pageUrl: () => page.url,
    connect: (elicit) => (elicit ? connectClient(transport(), elicit) : sharedClient()),
    events: async (runId) => {
      const store = new SqliteRunStore(db)
      try {
        return await store.events(runId)
      } finally {
        await store.close()
      }
    },
  }))

  test('no person can reach a run over stdio, so the model is not offered hand_over', async () => {
    const task = model.script('Finish at once (stdio, no person).', doneTurn('Done.'))
    const client = await sharedClient()
    const call = await callTool(client, 'browser_task', { task, startUrl: page.url, maxTurns: 3 })
    expect(call.result.isError).toBeFalsy()
    const asked = model.fake.requests.find((request) => promptText(request).includes(task))
    // The actions the model may call are the keys of the step schema's action union.
    const actions = JSON.stringify(asked?.body.tools)
    expect(actions).toContain('"done"')
    expect(actions).not.toContain('"hand_over"')
  })
})
