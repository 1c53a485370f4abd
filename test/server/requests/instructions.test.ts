import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import { prepareRun } from '../../../src/agent/replay/replay-setup.ts'
import type { Recording } from '../../../src/recording/schema.ts'
import { callTool, connectClient } from '../../mcp/support.ts'
import {
  doneTurn,
  type FakeOpenAI,
  type FakeRequest,
  scriptedTurns,
  startFakeOpenAI,
} from '../../support/models/fake-openai.ts'
import { type Harness, json, postRun, readSse, runIdOf, startHarness, startTestPage } from '../support.ts'

// A run's own instructions, on every surface that starts a run on a server: they reach the system
// prompt (where the provider caches the fixed part of every step), and the run's events and recording
// keep them, scrubbed of the run's secrets.

const turns = scriptedTurns()
let fake: FakeOpenAI
let harness: Harness

beforeAll(async () => {
  fake = await startFakeOpenAI({ fallback: turns.fallback })
  harness = await startHarness({ fake, browser: null })
})
afterAll(async () => {
  await harness?.close()
  await fake?.close()
})

/** The system prompt of the first model request whose prompt names the task. */
function systemPromptOf(task: string): string {
  const request = fake.requests.find((candidate: FakeRequest) =>
    candidate.body.messages.some((message) => JSON.stringify(message.content).includes(task)),
  )
  const system = request?.body.messages.filter(
    (message) => message.role === 'system' || message.role === 'developer',
  )
  return JSON.stringify(system ?? [])
}

describe('instructions per run', () => {
  test('POST /v1/runs: in the system prompt, in run_started, in the recording; a secret in them is scrubbed', async () => {
    const task = turns.script('Report the house rule (HTTP).', doneTurn('Euros.'))
    const response = await postRun(harness.url, {
      task,
      instructions: 'Prices are in euros. Sign as agent-7, pin s3cr3t-pin.',
      secrets: { pin: 's3cr3t-pin' },
    })
    expect(response.status).toBe(200)
    const runId = runIdOf(response)
    const events = (await readSse(response)).map((message) => message.data as Record<string, unknown>)

    expect(systemPromptOf(task)).toContain('Prices are in euros. Sign as agent-7')
    expect(events[0]).toMatchObject({ type: 'run_started', instructions: expect.stringContaining('euros') })
    const stored = JSON.stringify(await harness.store.events(runId))
    expect(stored).toContain('Prices are in euros.')
    expect(stored).not.toContain('s3cr3t-pin')

    const recording = await json<Recording>(await fetch(`${harness.url}/v1/runs/${runId}/recording`))
    expect(recording.instructions).toContain('Prices are in euros.')
    expect(JSON.stringify(recording)).not.toContain('s3cr3t-pin')
  })

  test('POST /v1/runs refuses instructions that are empty or longer than 8,000 characters, saying which', async () => {
    for (const instructions of ['   ', 'x'.repeat(8001)]) {
      const response = await postRun(harness.url, { task: 'Anything.', instructions })
      expect(response.status).toBe(400)
      expect(JSON.stringify(await response.json())).toContain('instructions')
    }
  })

  test("MCP's browser_task takes them", async () => {
    const task = turns.script('Report the house rule (MCP).', doneTurn('Euros.'))
    const client = await connectClient(new StreamableHTTPClientTransport(new URL(`${harness.url}/mcp`)))
    const call = await callTool(client, 'browser_task', { task, instructions: 'Always answer in French.' })
    await client.close()
    expect(call.result.isError).toBeFalsy()
    expect(systemPromptOf(task)).toContain('Always answer in French.')
  })

  test("POST /v1/evals: a task's own instructions, else the suite's defaults", async () => {
    // Evals need a browser: a server of their own with one, on a page of its own.
    const page = await startTestPage()
    const withBrowser = await startHarness({ fake, browser: 'chromium' })
    onTestFinished(async () => {
      await withBrowser.close()
      await page.close()
    })
    const own = turns.script('Report the house rule (eval, own).', doneTurn('Done.'))
    const inherited = turns.script('Report the house rule (eval, default).', doneTurn('Done.'))
    const suite = [
      'defaults:',
      '  maxTurns: 2',
      '  instructions: The suite says hello.',
      'tasks:',
      '  - id: own',
      `    task: ${own}`,
      `    startUrl: ${page.url}`,
      '    instructions: The task says goodbye.',
      '    check: { resultIncludes: Done }',
      '  - id: inherited',
      `    task: ${inherited}`,
      `    startUrl: ${page.url}`,
      '    check: { resultIncludes: Done }',
    ].join('\n')
    const response = await fetch(`${withBrowser.url}/v1/evals`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ suite }),
    })
    expect(response.status).toBe(200)
    await readSse(response)
    expect(systemPromptOf(own)).toContain('The task says goodbye.')
    expect(systemPromptOf(own)).not.toContain('The suite says hello.')
    expect(systemPromptOf(inherited)).toContain('The suite says hello.')
  })
})

describe("a replay's instructions", () => {
  const recording: Recording = { version: 1, task: 'Buy it.', instructions: 'Pay by card.', steps: [] }

  test("are the recording's unless the request gives others", () => {
    expect(prepareRun({ replay: recording, canHeal: true }).instructions).toBe('Pay by card.')
    expect(prepareRun({ replay: recording, instructions: 'Pay cash.', canHeal: true }).instructions).toBe(
      'Pay cash.',
    )
    expect(prepareRun({ task: 'Buy it.', canHeal: true }).instructions).toBeUndefined()
  })
})
