import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
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

describe('sextant mcp (stdio)', () => {
  mcpScenarios('stdio', () => ({
    model,
    pageUrl: () => page.url,
    connect: (elicit) => connectClient(transport(), elicit),
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
    const client = await connectClient(transport())
    const call = await callTool(client, 'browser_task', { task, startUrl: page.url, maxTurns: 3 })
    expect(call.result.isError).toBeFalsy()
    await client.close()
    const asked = model.fake.requests.find((request) => promptText(request).includes(task))
    // The actions the model may call are the keys of the step schema's action union.
    const actions = JSON.stringify(asked?.body.tools)
    expect(actions).toContain('"done"')
    expect(actions).not.toContain('"hand_over"')
  })
})
