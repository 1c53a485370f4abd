import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js'
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js'
import { traceparentOf } from '../telemetry/traceparent.ts'
import type { McpBackend, McpRunRequest } from './backend.ts'
import { runToAnswer } from './run-task.ts'
import { refusal, TaskAnswerSchema, taskResult } from './task-answer.ts'
import type { Elicitation, TaskHost } from './task-host.ts'
import {
  BrowserTaskInputSchema,
  GetRunInputSchema,
  ListRunsInputSchema,
  ReplayRunInputSchema,
} from './tool-inputs.ts'

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>

/** What the session holding this server learns of its tool calls. */
export interface McpSessionHooks {
  /** A task (browser_task, replay_run) starts; the returned function is called when its call ends. */
  taskStarted(): () => void
}

/**
 * Sextant's MCP server: browser_task, replay_run, list_runs and get_run over
 * `backend`. One per client connection (an MCP server holds one session).
 */
export function createMcpServer(backend: McpBackend, version: string, hooks?: McpSessionHooks): McpServer {
  const mcp = new McpServer({ name: 'sextant', version })

  const runTool = async (request: McpRunRequest, extra: Extra): Promise<CallToolResult> => {
    const ended = hooks?.taskStarted()
    try {
      const traceparent = callTraceparent(extra)
      const runId = await backend.start(traceparent === undefined ? request : { ...request, traceparent })
      const answer = await runToAnswer(backend, runId, taskHost(mcp, extra))
      return answer ? taskResult(answer) : refusal(`Run ${runId} was cancelled.`)
    } finally {
      ended?.()
    }
  }

  mcp.registerTool(
    'browser_task',
    {
      title: 'Do a task in a web browser',
      description:
        'Hands a task to Sextant, whose own model operates a real Chromium browser step by step until the task is done, and returns the answer: text, success, why the run ended, and `data` typed by `output` when given. Progress is reported per step; cancelling the call aborts the run. Confirmations and questions are asked through elicitation when the client supports it.',
      inputSchema: BrowserTaskInputSchema,
      outputSchema: TaskAnswerSchema,
    },
    async (input, extra) => {
      // Every field of the tool's input is a run request field of the same name.
      return runTool(definedOnly(input), extra)
    },
  )

  mcp.registerTool(
    'replay_run',
    {
      title: 'Replay a recorded run',
      description:
        "Replays a run's recording (by run id) or a recording itself: zero model calls when the pages did not change; the model heals the steps that did. Returns like browser_task.",
      inputSchema: ReplayRunInputSchema,
      outputSchema: TaskAnswerSchema,
    },
    async ({ runId, recording, variables, startUrl, handover }, extra) =>
      runTool(definedOnly({ replay: runId ?? recording, variables, startUrl, handover }), extra),
  )

  mcp.registerTool(
    'list_runs',
    {
      title: 'List recent runs',
      description: 'Recent runs, newest first: status, task, result, steps, cost. Never secrets.',
      inputSchema: ListRunsInputSchema,
      annotations: { readOnlyHint: true },
    },
    async ({ limit, status }) => {
      const runs = await backend.listRuns({ limit: limit ?? 20, ...(status ? { status } : {}) })
      return json({ runs })
    },
  )

  mcp.registerTool(
    'get_run',
    {
      title: 'Show a run',
      description:
        "A run's status, task, result, usage and cost, with its sub-agents' runs, and `waitingForPerson: true` while a person has its browser (the run waits for them to hand it back). Never secrets.",
      inputSchema: GetRunInputSchema,
      annotations: { readOnlyHint: true },
    },
    async ({ runId }) => {
      const run = await backend.getRun(runId)
      return run ? json(run) : refusal(`No run with id "${runId}".`)
    },
  )
  return mcp
}

/** The tool call's side of a run: its cancellation, its progress token, and elicitation when offered. */
/**
 * The caller's trace context: `params._meta.traceparent` (SEP-414, the MCP trace-context
 * proposal), else over HTTP the call's `traceparent` header; `_meta` wins, being the call's own.
 */
function callTraceparent(extra: Extra): string | undefined {
  return traceparentOf(extra._meta?.traceparent, extra.requestInfo?.headers.traceparent)
}

function taskHost(mcp: McpServer, extra: Extra): TaskHost {
  const token = extra._meta?.progressToken
  const canElicit = mcp.server.getClientCapabilities()?.elicitation !== undefined
  return {
    signal: extra.signal,
    progress: async (update) => {
      if (token === undefined) return
      await extra.sendNotification({
        method: 'notifications/progress',
        params: { progressToken: token, ...update },
      })
    },
    ...(canElicit ? { elicit: (request, signal) => elicit(mcp, extra, request, signal) } : {}),
  }
}

async function elicit(
  mcp: McpServer,
  extra: Extra,
  { message, field, expiresAt }: Elicitation,
  signal: AbortSignal,
): Promise<Record<string, unknown> | undefined> {
  const property =
    field.type === 'boolean'
      ? { type: 'boolean' as const, title: field.title }
      : { type: 'string' as const, title: field.title }
  const timeout = expiresAt === undefined ? undefined : Math.max(1, Date.parse(expiresAt) - Date.now())
  const result = await mcp.server.elicitInput(
    {
      message,
      requestedSchema: {
        type: 'object',
        properties: { [field.name]: property },
        required: [field.name],
      },
    },
    // Related to the tool call, so over HTTP the request travels on that call's stream.
    { relatedRequestId: extra.requestId, signal, ...(timeout === undefined ? {} : { timeout }) },
  )
  return result.action === 'accept' ? result.content : undefined
}

function json(value: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }] }
}

/** Drops the keys whose value is undefined (exactOptionalPropertyTypes). */
function definedOnly<T extends object>(value: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>
  }
}
