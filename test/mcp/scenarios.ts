import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js'
import { Ajv } from 'ajv'
import { expect, test } from 'vitest'
import { runRequestFields } from '../../src/agent/run/run-request-fields.ts'
import type { AgentEvent } from '../../src/events/events.ts'
import { TaskAnswerSchema } from '../../src/mcp/task-answer.ts'
import { actionTurn, doneTurn, navigateTurn } from '../support/models/fake-openai.ts'
import { until } from '../support/until.ts'
import { callTool, type ScriptedModel, textOf } from './support.ts'

export interface McpSurface {
  model: ScriptedModel
  /** The test page's URL. */
  pageUrl(): string
  /** A connected SDK client; with `elicit`, it offers elicitation. */
  connect(elicit?: (message: string) => ElicitResult): Promise<Client>
  /** The stored events of a run. */
  events(runId: string): Promise<AgentEvent[]>
}

/** The exchanges every MCP transport must carry alike (stdio and /mcp). */
export function mcpScenarios(name: string, surface: () => McpSurface): void {
  test('tools/list lists the four tools, their inputs built from the API run request fields', async () => {
    const client = await surface().connect()
    const { tools } = await client.listTools()
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'browser_task',
      'get_run',
      'list_runs',
      'replay_run',
    ])
    const browserTask = tools.find((tool) => tool.name === 'browser_task')!
    expect(Object.keys(browserTask.inputSchema.properties ?? {}).sort()).toEqual(
      [
        'allowedDomains',
        'artifacts',
        'blockPrivateNetworks',
        'browser',
        'handover',
        'instructions',
        'maxCostUsd',
        'maxDurationMs',
        'maxSessionTokens',
        'maxTurns',
        'model',
        'output',
        'profile',
        'profileSave',
        'priority',
        'proxy',
        'queueTimeoutMs',
        'startUrl',
        'subAgents',
        'task',
        'vision',
        'webhook',
      ].sort(),
    )
    expect(browserTask.inputSchema.required).toEqual(['task'])
    const allowed = browserTask.inputSchema.properties?.allowedDomains as { description?: string }
    expect(allowed.description).toBe(runRequestFields.allowedDomains.description)
    expect(browserTask.outputSchema?.properties).toHaveProperty('success')
    const replay = tools.find((tool) => tool.name === 'replay_run')!
    expect(Object.keys(replay.inputSchema.properties ?? {}).sort()).toEqual([
      'handover',
      'recording',
      'runId',
      'startUrl',
      'variables',
    ])
    await client.close()
  })

  test('browser_task returns the answer, with a progress notification per step; get_run and list_runs show it', async () => {
    const { model, pageUrl, connect } = surface()
    const task = model.script(
      `Read the page title (${name}).`,
      navigateTurn(pageUrl()),
      doneTurn('The title is Sextant Test Page.'),
    )
    const client = await connect()
    const call = await callTool(client, 'browser_task', { task, startUrl: pageUrl(), maxTurns: 5 })
    expect(call.result.isError).toBeFalsy()
    const answer = TaskAnswerSchema.parse(call.result.structuredContent)
    expect(answer).toMatchObject({
      success: true,
      text: 'The title is Sextant Test Page.',
      reason: 'model_stop',
      steps: 2,
    })
    expect(textOf(call)).toContain('The title is Sextant Test Page.')
    expect(call.progress.map((update) => [update.progress, update.total])).toEqual([
      [1, 5],
      [2, 5],
    ])
    expect(call.progress[0]?.message).toMatch(/^Step 1 of 5: Open .+ — navigate \{"url":/)
    expect(call.progress[1]?.message).toMatch(/^Step 2 of 5: Report the result\. — done/)

    const run = await callTool(client, 'get_run', { runId: answer.runId })
    expect(JSON.parse(textOf(run))).toMatchObject({
      id: answer.runId,
      status: 'completed',
      task,
      children: [],
    })
    const list = await callTool(client, 'list_runs', { status: 'completed', limit: 50 })
    const runs = (JSON.parse(textOf(list)) as { runs: { id: string; status: string }[] }).runs
    expect(runs.map((listed) => listed.id)).toContain(answer.runId)
    expect(runs.every((listed) => listed.status === 'completed')).toBe(true)
    await client.close()
  })

  test('replay_run replays a run by its id with zero model calls', async () => {
    const { model, pageUrl, connect } = surface()
    const task = model.script(
      `Open the page, to replay (${name}).`,
      navigateTurn(pageUrl()),
      doneTurn('Opened it.'),
    )
    const client = await connect()
    const first = TaskAnswerSchema.parse(
      (await callTool(client, 'browser_task', { task, startUrl: pageUrl(), maxTurns: 5 })).result
        .structuredContent,
    )
    const modelCalls = model.fake.requests.length
    const replay = await callTool(client, 'replay_run', { runId: first.runId })
    const answer = TaskAnswerSchema.parse(replay.result.structuredContent)
    expect(answer).toMatchObject({ success: true, text: 'Opened it.', reason: 'model_stop', steps: 2 })
    expect(answer.runId).not.toBe(first.runId)
    expect(model.fake.requests.length).toBe(modelCalls)
    expect(replay.progress.map((update) => update.progress)).toEqual([1, 2])
    await client.close()
  })

  test('browser_task with `output` returns data that validates against it as structured content', async () => {
    const { model, pageUrl, connect } = surface()
    const output = {
      type: 'object',
      properties: { title: { type: 'string' }, words: { type: 'integer' } },
      required: ['title', 'words'],
      additionalProperties: false,
    }
    const typedDone = (data: unknown) => actionTurn('done', { text: 'Read the title.', success: true, data })
    const task = model.script(
      `Typed answer (${name}).`,
      navigateTurn(pageUrl()),
      // First data that does not match (words is a string): the model reads why and answers again.
      typedDone({ title: 'Sextant Test Page', words: 'three' }),
      typedDone({ title: 'Sextant Test Page', words: 3 }),
    )
    const client = await connect()
    const call = await callTool(client, 'browser_task', { task, startUrl: pageUrl(), maxTurns: 5, output })
    expect(call.result.isError).toBeFalsy()
    const answer = TaskAnswerSchema.parse(call.result.structuredContent)
    expect(answer).toMatchObject({ success: true, reason: 'model_stop' })
    const validate = new Ajv({ strict: false }).compile(output)
    expect(validate(answer.data), JSON.stringify(validate.errors)).toBe(true)
    expect(answer.data).toEqual({ title: 'Sextant Test Page', words: 3 })
    await client.close()
  })

  test('browser_task refuses a recursive or over-deep output schema, or a pattern RE2 cannot run, naming it', async () => {
    const { connect } = surface()
    const client = await connect()
    let deep: Record<string, unknown> = { type: 'string' }
    for (let i = 0; i < 1000; i++) deep = { type: 'array', items: deep }
    for (const [output, problem] of [
      [{ $ref: '#' }, 'has a recursive $ref'],
      [deep, 'is nested deeper than 64 levels'],
      [{ type: 'string', pattern: '(?=x)' }, 'The pattern'],
    ] as const) {
      // The SDK answers invalid arguments either as an error result or as a thrown protocol error.
      const message = await callTool(client, 'browser_task', { task: `Bounded (${name}).`, output }).then(
        (call) => (call.result.isError ? textOf(call) : 'accepted'),
        (error: unknown) => String(error),
      )
      expect(message).toContain(problem)
    }
  })

  test('cancelling the request aborts the run: the store shows user_abort', async () => {
    const { model, pageUrl, connect } = surface()
    const task = model.script(`Wait forever (${name}).`, navigateTurn(pageUrl()), { hang: true })
    const client = await connect()
    const cancel = new AbortController()
    const call = callTool(
      client,
      'browser_task',
      { task, startUrl: pageUrl(), maxTurns: 5 },
      {
        signal: cancel.signal,
        // Step 1 is over: step 2's model call hangs until the run is aborted.
        onProgress: () => cancel.abort(),
      },
    )
    await expect(call).rejects.toThrow()
    const stopped = await until(async () => {
      const list = await callTool(client, 'list_runs', { limit: 5 })
      const runs = (JSON.parse(textOf(list)) as { runs: { task: string; status: string; reason?: string }[] })
        .runs
      return runs.find((run) => run.task === task && run.status === 'stopped')
    })
    expect(stopped).toMatchObject({ reason: 'user_abort' })
    await client.close()
  })

  test('a confirmation is asked through elicitation when the client offers it', async () => {
    const { model, pageUrl, connect, events } = surface()
    const task = model.script(
      `Run a script, asking first (${name}).`,
      actionTurn('execute_javascript', { script: 'return document.title' }),
      doneTurn('Ran it.'),
    )
    const asked: string[] = []
    const client = await connect((message) => {
      asked.push(message)
      return { action: 'accept', content: { approve: true } }
    })
    const call = await callTool(client, 'browser_task', { task, startUrl: pageUrl(), maxTurns: 5 })
    const answer = TaskAnswerSchema.parse(call.result.structuredContent)
    expect(answer).toMatchObject({ success: true, text: 'Ran it.' })
    expect(answer.notes).toBeUndefined()
    expect(asked).toHaveLength(1)
    expect(asked[0]).toContain('execute_javascript')
    const resolved = (await events(answer.runId)).filter((event) => event.type === 'confirmation_resolved')
    expect(resolved).toMatchObject([{ approved: true, by: 'user' }])
    const result = (await events(answer.runId)).find((event) => event.type === 'tool_call_result')
    expect(result).toMatchObject({ ok: true })
    await client.close()
  })

  test('without elicitation, a confirmation is denied and the answer says so', async () => {
    const { model, pageUrl, connect, events } = surface()
    const task = model.script(
      `Run a script, nobody to ask (${name}).`,
      actionTurn('execute_javascript', { script: 'return document.title' }),
      doneTurn('It was not allowed.', false),
    )
    const client = await connect()
    const call = await callTool(client, 'browser_task', { task, startUrl: pageUrl(), maxTurns: 5 })
    const answer = TaskAnswerSchema.parse(call.result.structuredContent)
    expect(answer.notes).toHaveLength(1)
    expect(answer.notes?.[0]).toContain('cannot be asked (no elicitation), so it was denied')
    expect(textOf(call)).toContain('so it was denied')
    const resolved = (await events(answer.runId)).filter((event) => event.type === 'confirmation_resolved')
    expect(resolved).toMatchObject([{ approved: false }])
    await client.close()
  })
}
