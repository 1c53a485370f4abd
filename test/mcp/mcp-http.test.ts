import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type Harness, startHarness, startTestPage } from '../http/support.ts'
import { doneTurn } from '../support/fake-openai.ts'
import type { PageServer } from '../support/page-server.ts'
import { mcpScenarios } from './scenarios.ts'
import { connectClient, type ScriptedModel, startScriptedModel } from './support.ts'

const token = 'mcp-test-token'
let model: ScriptedModel
let page: PageServer
let harness: Harness

beforeAll(async () => {
  model = await startScriptedModel()
  page = await startTestPage()
  harness = await startHarness({ fake: model.fake, browser: 'chromium', config: { apiToken: token } })
})
afterAll(async () => {
  await harness?.close()
  await page?.close()
  await model?.fake.close()
})

function transport(headers: Record<string, string> = { Authorization: `Bearer ${token}` }) {
  return new StreamableHTTPClientTransport(new URL(`${harness.url}/mcp`), { requestInit: { headers } })
}

describe('MCP over streamable HTTP at /mcp', () => {
  mcpScenarios('http', () => ({
    model,
    pageUrl: () => page.url,
    connect: (elicit) => connectClient(transport(), elicit),
    events: (runId) => harness.store.events(runId),
  }))

  test('/mcp without the token is refused, like /v1', async () => {
    await expect(connectClient(transport({}))).rejects.toThrow(/401|unauthorized|Bearer/i)
    const response = await fetch(`${harness.url}/mcp`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
    expect(response.status).toBe(401)
  })

  test('the answer links the run in the viewer', async () => {
    const task = model.script('Say hello (http viewer).', doneTurn('Hello.'))
    const client = await connectClient(transport())
    const result = await client.callTool({ name: 'browser_task', arguments: { task, maxTurns: 2 } })
    const answer = result.structuredContent as { runId: string; viewerUrl?: string }
    expect(answer.viewerUrl).toBe(`${harness.url}/runs/${answer.runId}`)
    await client.close()
  })
})
