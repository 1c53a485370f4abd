import { randomUUID } from 'node:crypto'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import { Hono } from 'hono'
import { describeRoute } from 'hono-openapi'
import { createMcpServer } from '../../mcp/mcp-server.ts'
import { ApiError } from '../http/api-errors.ts'
import type { AppEnv } from '../http/app-env.ts'
import { errorResponse } from '../http/route-docs.ts'
import { managerBackend } from '../runs/mcp-backend.ts'
import type { RunManager } from '../runs/run-manager.ts'
import { runRequestMaxBytes } from './runs.ts'

export interface McpRoutesOptions {
  manager: RunManager
  version: string
}

/** Sessions beyond this close the oldest: a client that never says goodbye costs a bounded amount. */
const maxSessions = 100

const sessionHeader = 'mcp-session-id'

/**
 * /mcp: the MCP tools over streamable HTTP (docs/mcp.md). Sessions are kept,
 * because elicitation answers and cancellations arrive as requests of their
 * own and must reach the session whose tool call is waiting.
 */
export function mcpRoutes({ manager, version }: McpRoutesOptions): Hono<AppEnv> {
  const routes = new Hono<AppEnv>()
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>()

  const openSession = async (viewerBase: string) => {
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      maxRequestBodySize: runRequestMaxBytes,
      onsessioninitialized: (id) => {
        sessions.set(id, transport)
        if (sessions.size > maxSessions) {
          const [oldest] = sessions.values()
          void oldest?.close()
        }
      },
      onsessionclosed: (id) => void sessions.delete(id),
    })
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId)
    }
    await createMcpServer(managerBackend(manager, viewerBase), version).connect(transport)
    return transport
  }

  routes.on(['GET', 'POST', 'DELETE'], '/', mcpDescription, async (c) => {
    const id = c.req.header(sessionHeader)
    if (id !== undefined) {
      const transport = sessions.get(id)
      if (!transport)
        throw new ApiError(404, 'not_found', `No MCP session "${id.slice(0, 60)}"; initialize a new one.`)
      return transport.handleRequest(c.req.raw)
    }
    if (c.req.method !== 'POST') {
      throw new ApiError(400, 'invalid_request', `${c.req.method} /mcp needs the ${sessionHeader} header.`)
    }
    // Only an initialize request opens a session; the transport refuses anything else without one.
    const transport = await openSession(new URL(c.req.url).origin)
    const response = await transport.handleRequest(c.req.raw)
    if (transport.sessionId === undefined) await transport.close()
    return response
  })

  return routes
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
    '404': errorResponse('No such session: initialize a new one.'),
  },
})
