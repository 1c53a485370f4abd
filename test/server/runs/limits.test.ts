import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { TaskAnswerSchema } from '../../../src/mcp/task-answer.ts'
import { callTool, connectClient } from '../../mcp/support.ts'
import {
  actionTurn,
  type FakeOpenAI,
  scriptedTurns,
  startFakeOpenAI,
} from '../../support/models/fake-openai.ts'
import { events, type Harness, json, postRun, readSse, startHarness } from '../support.ts'

// A run's limits over the server's surfaces: a dollar cap ends a priced run with budget_exceeded over
// HTTP and MCP (/mcp), a cap on a model without a price is refused on both, and SEXTANT_MAX_RUN_MS ends a run that
// waits on a model that never answers.

const turns = scriptedTurns()
/** 500k input and 100k output tokens: $0.36 at the price below. */
const costly = { usage: { promptTokens: 500_000, completionTokens: 100_000 } }
let fake: FakeOpenAI
let harness: Harness
let folder: string

beforeAll(async () => {
  fake = await startFakeOpenAI({ fallback: turns.fallback })
  folder = mkdtempSync(join(tmpdir(), 'sextant-prices-'))
  const prices = join(folder, 'prices.json')
  writeFileSync(prices, JSON.stringify({ models: { 'fake/agent-model': { input: 0.4, output: 1.6 } } }))
  harness = await startHarness({ fake, config: { prices, maxRunMs: 1_000 } })
})
afterAll(async () => {
  await harness?.close()
  await fake?.close()
  rmSync(folder, { recursive: true, force: true })
})

test('maxCostUsd ends a priced run with budget_exceeded over HTTP', async () => {
  const task = turns.script('Spend a lot (http).', actionTurn('wait', { seconds: 1 }, costly))
  const response = await postRun(harness.url, { task, maxCostUsd: 0.3, maxDurationMs: 60_000 })
  expect(response.status).toBe(200)
  const done = events(await readSse(response)).at(-1)
  expect(done).toMatchObject({ type: 'done', reason: 'budget_exceeded', steps: 1, costUsd: 0.36 })
  expect(done?.type === 'done' && done.result.text).toContain('over its budget of $0.3')
})

test('maxCostUsd on a model without a price is a 400 that says why', async () => {
  const response = await postRun(harness.url, { task: 'Anything.', model: 'fake/unpriced', maxCostUsd: 1 })
  expect(response.status).toBe(400)
  const body = await json<{ error: { message: string } }>(response)
  expect(body.error.message).toContain('maxCostUsd needs a priced model, and fake/unpriced has no price')
})

test('maxCostUsd ends a priced run with budget_exceeded over MCP', async () => {
  const task = turns.script('Spend a lot (mcp).', actionTurn('wait', { seconds: 1 }, costly))
  const client = await connectClient(new StreamableHTTPClientTransport(new URL(`${harness.url}/mcp`)))
  const call = await callTool(client, 'browser_task', { task, maxCostUsd: 0.3, maxDurationMs: 60_000 })
  expect(TaskAnswerSchema.parse(call.result.structuredContent)).toMatchObject({
    reason: 'budget_exceeded',
    success: false,
  })
  await client.close()
})

test('maxCostUsd on a model without a price is refused over MCP, saying why, before a run starts', async () => {
  const client = await connectClient(new StreamableHTTPClientTransport(new URL(`${harness.url}/mcp`)))
  const call = await callTool(client, 'browser_task', {
    task: 'Anything.',
    model: 'fake/unpriced',
    maxCostUsd: 1,
  })
  expect(call.result.isError).toBe(true)
  expect(JSON.stringify(call.result.content)).toContain(
    'maxCostUsd needs a priced model, and fake/unpriced has no price',
  )
  await client.close()
})

test('SEXTANT_MAX_RUN_MS ends a run whose request sets no bound, while it waits on the model', async () => {
  const task = turns.script('Wait on a model that never answers.', { hang: true })
  const response = await postRun(harness.url, { task })
  const done = events(await readSse(response)).at(-1)
  expect(done).toMatchObject({ type: 'done', reason: 'budget_exceeded' })
  expect(done?.type === 'done' && done.result.text).toContain('time limit of 1 s (maxDurationMs)')
})
