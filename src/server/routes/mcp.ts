import { randomUUID } from 'node:crypto'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import { Hono } from 'hono'
import { describeRoute } from 'hono-openapi'
import { HttpSessions, releasedWhenRead, type SessionLimits } from '../../mcp/http-sessions.ts'
import { createMcpServer } from '../../mcp/mcp-server.ts'
import { describeDuration } from '../../util/text.ts'
import { ApiError } from '../http/api-errors.ts'
import type { AppEnv } from '../http/app-env.ts'
import { errorResponse } from '../http/route-docs.ts'
import { managerBackend } from '../runs/mcp-backend.ts'
import type { RunManager } from '../runs/run-manager.ts'
import { runRequestMaxBytes } from './runs.ts'

export interface McpRoutesOptions {
  manager: RunManager
  version: string
  /** A session without a task in flight closes after this long without a request (SEXTANT_MCP_IDLE_MS). */
  mcpIdleMs?: number
}

/** Sessions kept at once: past it, an initialize is refused; no session is taken from its client. */
export const maxMcpSessions = 100
export const defaultMcpIdleMs = 30 * 60_000

const sessionHeader = 'mcp-session-id'

/**
 * /mcp: the MCP tools over streamable HTTP (docs/mcp.md). Sessions are kept,
 * because elicitation answers and cancellations arrive as requests of their
 * own and must reach the session whose tool call is waiting.
 */
export function mcpRoutes({ manager, version, mcpIdleMs }: McpRoutesOptions): Hono<AppEnv> {
  const routes = new Hono<AppEnv>()
  const sessions = new HttpSessions<WebStandardStreamableHTTPServerTransport>({
    maxSessions: maxMcpSessions,
    idleMs: mcpIdleMs ?? defaultMcpIdleMs,
  })

  const openSession = async (viewerBase: string) => {
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      maxRequestBodySize: runRequestMaxBytes,
      onsessioninitialized: (id) => sessions.add(id, transport),
      onsessionclosed: (id) => sessions.remove(id),
    })
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.remove(transport.sessionId)
    }
    const hooks = {
      taskStarted: () => (transport.sessionId === undefined ? () => {} : sessions.hold(transport.sessionId)),
    }
    await createMcpServer(managerBackend(manager, viewerBase), version, hooks).connect(transport)
    return transport
  }

  routes.on(['GET', 'POST', 'DELETE'], '/', mcpDescription, async (c) => {
    const id = c.req.header(sessionHeader)
    if (id !== undefined) {
      const transport = sessions.get(id)
      if (!transport)
        throw new ApiError(404, 'not_found', `No MCP session "${id.slice(0, 60)}"; initialize a new one.`)
      // A GET is the client's standing stream for server messages: it does not keep an idle session.
      if (c.req.method !== 'POST') return transport.handleRequest(c.req.raw)
      const held = sessions.hold(id)
      try {
        return releasedWhenRead(await transport.handleRequest(c.req.raw), held)
      } catch (error) {
        held()
        throw error
      }
    }
    if (c.req.method !== 'POST') {
      throw new ApiError(400, 'invalid_request', `${c.req.method} /mcp needs the ${sessionHeader} header.`)
    }
    const release = sessions.reserve()
    if (!release) return c.json(sessionsFull(sessions.limits), 503)
    try {
      // Only an initialize request opens a session; the transport refuses anything else without one.
      const transport = await openSession(new URL(c.req.url).origin)
      const response = await transport.handleRequest(c.req.raw)
      if (transport.sessionId === undefined) {
        await transport.close()
        return response
      }
      return releasedWhenRead(response, sessions.hold(transport.sessionId))
    } finally {
      release()
    }
  })

  return routes
}

/** A JSON-RPC error, as the SDK's transport answers its own refusals, so clients show the message. */
function sessionsFull({ maxSessions, idleMs }: SessionLimits) {
  const message = `This server keeps at most ${maxSessions} MCP sessions and all are in use (a task or a request in flight, or one in the last ${describeDuration(idleMs)}); no session is taken from its client. Try again later, or end a session you no longer need (DELETE /mcp with its Mcp-Session-Id).`
  return { jsonrpc: '2.0', error: { code: -32000, message }, id: null }
}

const mcpDescription = describeRoute({
  summary:
    'The Model Context Protocol over streamable HTTP: browser_task, replay_run, list_runs, get_run (docs/mcp.md)',
  responses: {
    '200': {
      description: 'A JSON-RPC response, or an SSE stream of JSON-RPC messages',
      content: {
        'application/json': { schema: { type: 'object' } },
        'text/event-stream': { schema: { type: 'string' } },
      },
    },
    '202': { description: 'A notification or response was accepted' },
    '400': errorResponse('Not an MCP message, or no session to send it to.'),
    '404': errorResponse('No such session (it ended, or closed once idle): initialize a new one.'),
    '503': {
      description: 'Every MCP session the server keeps is in use: a JSON-RPC error says so; try again later',
      content: { 'application/json': { schema: { type: 'object' } } },
    },
  },
})
