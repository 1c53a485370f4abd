import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { ElicitRequestSchema, type ElicitResult, type Progress } from '@modelcontextprotocol/sdk/types.js'
import {
  type FakeOpenAI,
  type FakeTurn,
  scriptedTurns,
  startFakeOpenAI,
} from '../support/models/fake-openai.ts'

/** A fake model whose turns are scripted per task: each MCP run follows its own script. */
export interface ScriptedModel {
  fake: FakeOpenAI
  script(task: string, ...turns: FakeTurn[]): string
}

export async function startScriptedModel(): Promise<ScriptedModel> {
  const turns = scriptedTurns()
  return { fake: await startFakeOpenAI({ fallback: turns.fallback }), script: turns.script }
}

/** The SDK's own client; `elicit` answers elicitation requests, and without it the client offers none. */
export async function connectClient(
  transport: Transport,
  elicit?: (message: string) => ElicitResult | Promise<ElicitResult>,
): Promise<Client> {
  const client = new Client(
    { name: 'sextant-test', version: '0.0.0' },
    elicit ? { capabilities: { elicitation: { form: {} } } } : {},
  )
  if (elicit) client.setRequestHandler(ElicitRequestSchema, (request) => elicit(request.params.message))
  await client.connect(transport)
  return client
}

export interface ToolCall {
  result: { content?: unknown; structuredContent?: Record<string, unknown>; isError?: boolean }
  progress: Progress[]
}

/** Calls a tool the way a host does: with a progress token, and a long timeout that progress resets. */
export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  options: { signal?: AbortSignal; onProgress?: (progress: Progress) => void } = {},
): Promise<ToolCall> {
  const progress: Progress[] = []
  const result = await client.callTool({ name, arguments: args }, undefined, {
    onprogress: (update) => {
      progress.push(update)
      options.onProgress?.(update)
    },
    timeout: 120_000,
    resetTimeoutOnProgress: true,
    ...(options.signal ? { signal: options.signal } : {}),
  })
  return { result: result as ToolCall['result'], progress }
}

/** The text of a tool result's first content part. */
export function textOf(call: ToolCall): string {
  const [first] = (call.result.content ?? []) as { type: string; text?: string }[]
  return first?.text ?? ''
}
