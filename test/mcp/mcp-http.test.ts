import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type Harness, startHarness, startTestPage } from '../server/support.ts'
import { doneTurn, promptText } from '../support/models/fake-openai.ts'
import type { PageServer } from '../support/page-server.ts'
import { mcpScenarios } from './scenarios.ts'
import { callTool, connectClient, type ScriptedModel, startScriptedModel } from './support.ts'

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

  test('a person may reach a run here, so the model is offered hand_over unless the call says handover: false', async () => {
    const offered = async (handover: boolean | undefined, label: string) => {
      const task = model.script(`Finish at once (http, handover ${label}).`, doneTurn('Done.'))
      const client = await connectClient(transport())
      const args = { task, startUrl: page.url, maxTurns: 3, ...(handover === undefined ? {} : { handover }) }
      const call = await callTool(client, 'browser_task', args)
      expect(call.result.isError).toBeFalsy()
      await client.close()
      const asked = model.fake.requests.find((request) => promptText(request).includes(task))
      // The actions the model may call are the keys of the step schema's action union.
      return JSON.stringify(asked?.body.tools).includes('"hand_over"')
    }
    expect(await offered(undefined, 'default')).toBe(true)
    expect(await offered(false, 'off')).toBe(false)
  })

  test('browser_task with a profile starts from it and saves it back, as POST /v1/runs does', async () => {
    const task = model.script('Finish at once (http, profile).', doneTurn('Done.'))
    const client = await connectClient(transport())
    const args = { task, startUrl: page.url, maxTurns: 3, profile: 'mcp-profile' }
    const call = await callTool(client, 'browser_task', args)
    await client.close()
    expect(call.result.isError).toBeFalsy()
    expect(call.result.structuredContent).toMatchObject({ success: true })
    const listed = await fetch(`${harness.url}/v1/profiles`, {
      headers: { Authorization: `Bearer ${token}` },
    })
    const { profiles } = (await listed.json()) as { profiles: { name: string }[] }
    expect(profiles.map((profile) => profile.name)).toContain('mcp-profile')
  })

  test("a refusal is named in the answer: outcome, reason and the model's words", async () => {
    const task = model.script('Refuse at once (http).', { refusal: "I'm sorry, I can't help with that." })
    const client = await connectClient(transport())
    const result = await client.callTool({ name: 'browser_task', arguments: { task, maxTurns: 2 } })
    await client.close()
    expect(result.structuredContent).toMatchObject({
      success: false,
      reason: 'error',
      outcome: { kind: 'refusal', providerReason: 'refusal' },
      text: `The model refused the task: "I'm sorry, I can't help with that."`,
    })
    const [line] = result.content as { text: string }[]
    expect(line?.text).toMatch(/^Not done \(error: refusal, /)
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
