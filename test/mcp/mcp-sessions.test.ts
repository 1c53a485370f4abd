import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { TaskAnswerSchema } from '../../src/mcp/task-answer.ts'
import { maxMcpSessions } from '../../src/server/routes/mcp.ts'
import { type Harness, startHarness } from '../server/support.ts'
import { actionTurn, doneTurn } from '../support/models/fake-openai.ts'
import { until } from '../support/until.ts'
import { callTool, connectClient, type ScriptedModel, startScriptedModel } from './support.ts'

let model: ScriptedModel
let harness: Harness | undefined

beforeAll(async () => {
  model = await startScriptedModel()
})
afterEach(async () => {
  await harness?.close()
  harness = undefined
})
afterAll(async () => {
  await model?.fake.close()
})

const mcpHeaders = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }

/** An initialize request as a client sends it, read to its end; the session's id when one was opened. */
async function initialize(url: string): Promise<{ status: number; body: string; sessionId: string | null }> {
  const response = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: mcpHeaders,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'filler', version: '0' },
      },
    }),
  })
  return {
    status: response.status,
    body: await response.text(),
    sessionId: response.headers.get('mcp-session-id'),
  }
}

const sessionHeaders = (sessionId: string) => ({
  'mcp-session-id': sessionId,
  'mcp-protocol-version': '2025-06-18',
})

/** Whether the server still holds the session: a ping in it is answered, not a 404. */
async function sessionAlive(url: string, sessionId: string): Promise<boolean> {
  const response = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { ...mcpHeaders, ...sessionHeaders(sessionId) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
  })
  await response.text()
  return response.status !== 404
}

/**
 * Resolves when the session ends: its stream of server messages (opened once,
 * so the waiting itself sends no request that would keep it alive) closes.
 */
async function sessionEnded(url: string, sessionId: string): Promise<void> {
  const response = await fetch(`${url}/mcp`, {
    headers: { Accept: 'text/event-stream', ...sessionHeaders(sessionId) },
  })
  expect(response.status).toBe(200)
  await response.text()
}

/**
 * A browser_task in flight, held in the model's question until `answer` is called: the
 * client's elicitation handler answers only then.
 */
async function taskInFlight(url: string, label: string) {
  const task = model.script(
    `Ask which colour, then finish (${label}).`,
    actionTurn('ask_user', { question: 'Which colour?' }),
    doneTurn('Blue it is.'),
  )
  let answer: (result: ElicitResult) => void = () => {}
  const answered = new Promise<ElicitResult>((resolve) => {
    answer = resolve
  })
  let asked = false
  const client = await connectClient(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)), () => {
    asked = true
    return answered
  })
  const call = callTool(client, 'browser_task', { task, maxTurns: 5 })
  await until(() => asked)
  return {
    client,
    /** The person answers; the task's answer once the run is done. */
    finish: async () => {
      answer({ action: 'accept', content: { answer: 'Blue' } })
      return TaskAnswerSchema.parse((await call).result.structuredContent)
    },
  }
}

describe('MCP sessions over /mcp', () => {
  test('a full server refuses the next initialize instead of ending a session with a task in flight', async () => {
    harness = await startHarness({ fake: model.fake, browser: null })
    const { url } = harness
    const holder = await taskInFlight(url, 'full server')
    // The holder's session and 99 more fill the server.
    const opened: string[] = []
    for (let i = 1; i < maxMcpSessions; i++) {
      const { status, sessionId } = await initialize(url)
      expect(status).toBe(200)
      if (sessionId) opened.push(sessionId)
    }
    expect(opened).toHaveLength(maxMcpSessions - 1)

    const refused = await initialize(url)
    expect(refused.status).toBe(503)
    expect(refused.sessionId).toBeNull()
    const { error } = JSON.parse(refused.body) as { error: { code: number; message: string } }
    expect(error.message).toMatch(/at most 100 MCP sessions and all are in use/)
    expect(error.message).toMatch(/no session is taken from its client/)
    // The SDK's own client shows the refusal.
    const client = connectClient(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)))
    await expect(client).rejects.toThrow(/at most 100 MCP sessions/)

    const answer = await holder.finish()
    expect(answer).toMatchObject({ reason: 'model_stop', success: true, text: 'Blue it is.' })

    // A client that ends its session frees its slot.
    const [first] = opened
    const ended = await fetch(`${url}/mcp`, {
      method: 'DELETE',
      headers: sessionHeaders(first ?? ''),
    })
    expect(ended.status).toBe(200)
    expect((await initialize(url)).status).toBe(200)
    await holder.client.close()
  })

  test('an idle session closes after the idle time; a session with a task in flight does not', async () => {
    harness = await startHarness({ fake: model.fake, browser: null, config: { mcpIdleMs: 1_000 } })
    const { url } = harness
    const holder = await taskInFlight(url, 'idle sessions')
    const idle = await initialize(url)
    expect(idle.sessionId).not.toBeNull()
    await sessionEnded(url, idle.sessionId ?? '')
    expect(await sessionAlive(url, idle.sessionId ?? '')).toBe(false)
    // The holder's session outlived many idle times: its task still answers.
    const answer = await holder.finish()
    expect(answer).toMatchObject({ reason: 'model_stop', success: true })
    await holder.client.close()
  })
})
