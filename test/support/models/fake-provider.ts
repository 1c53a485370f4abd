import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

/**
 * A local HTTP server standing in for a model provider's API, for wire tests:
 * the real AI SDK provider talks to it. Each request is recorded with its
 * parsed JSON body and answered by `respond` with SSE `frames` (each written
 * as one `data:` line, with an `event:` line when given), or with an HTTP error.
 */

export interface RecordedRequest {
  method: string
  url: string
  headers: IncomingMessage['headers']
  body: Record<string, unknown>
}

export interface SseFrame {
  event?: string
  data: unknown
}

/** An answer that is not a stream: the provider refused the request with this status, headers and JSON body. */
export interface HttpFailure {
  status: number
  headers?: Record<string, string>
  body: unknown
}

export interface FakeProvider {
  /** `http://127.0.0.1:<port>` + the path prefix the provider expects. */
  baseUrl: string
  requests: RecordedRequest[]
  close(): Promise<void>
}

export async function startFakeProvider(
  pathPrefix: string,
  respond: (request: RecordedRequest, index: number) => SseFrame[] | HttpFailure,
): Promise<FakeProvider> {
  const requests: RecordedRequest[] = []
  const sockets = new Set<Socket>()
  const server = createServer(async (req, res) => {
    let text = ''
    for await (const chunk of req) text += chunk
    const request: RecordedRequest = {
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
    }
    requests.push(request)
    const frames = respond(request, requests.length - 1)
    if (!Array.isArray(frames)) {
      res.writeHead(frames.status, { 'content-type': 'application/json', ...frames.headers })
      res.end(JSON.stringify(frames.body))
      return
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
    for (const frame of frames) {
      const event = frame.event ? `event: ${frame.event}\n` : ''
      res.write(`${event}data: ${JSON.stringify(frame.data)}\n\n`)
    }
    res.end()
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    baseUrl: `http://127.0.0.1:${port}${pathPrefix}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}

/** A JSON text cut into `count` pieces, the way providers stream tool arguments. */
export function pieces(text: string, count: number): string[] {
  const size = Math.ceil(text.length / count)
  const result: string[] = []
  for (let i = 0; i < text.length; i += size) result.push(text.slice(i, i + size))
  return result
}
