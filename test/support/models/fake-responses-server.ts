import { createServer } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import type { RecordedRequest } from './fake-provider.ts'

/**
 * A local fake of OpenAI's Responses API (`POST /v1/responses`): a streamed
 * request is answered with one `AgentOutput` function call whose arguments
 * are `answer`'s JSON, in the events of vercel/ai's recorded
 * packages/openai/src/responses/__fixtures__/issue-19493-gpt-5.1-tool-call.chunks.txt;
 * a request not streamed (structured output) with `output_text`. Like OpenAI, it refuses a `json_schema` format
 * sent with `strict: true` whose objects do not list every property in
 * `required` or are not closed with `additionalProperties: false`, with the
 * 400 body OpenAI sends; otherwise it answers `output_text` with the JSON
 * `answer` gives. Response shape: vercel/ai's recorded
 * packages/openai/src/responses/__fixtures__/issue-6454-root-definitions-success.json.
 */

export interface FakeResponses {
  /** `http://127.0.0.1:<port>/v1`, for OPENAI_BASE_URL. */
  baseUrl: string
  requests: RecordedRequest[]
  close(): Promise<void>
}

export async function startFakeResponses(
  answer: (request: RecordedRequest) => unknown,
): Promise<FakeResponses> {
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
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(JSON.stringify(body))
    }
    if (request.url !== '/v1/responses') return send(404, { error: { message: 'Not found' } })
    const format = (request.body.text as { format?: Record<string, unknown> } | undefined)?.format
    if (format?.type === 'json_schema' && format.strict === true) {
      const problem = strictProblem(format.schema as Record<string, unknown>, [])
      if (problem) {
        return send(400, {
          error: {
            message: `Invalid schema for response_format '${String(format.name)}': ${problem}`,
            type: 'invalid_request_error',
            param: 'text.format.schema',
            code: 'invalid_json_schema',
          },
        })
      }
    }
    if (request.body.stream === true) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
      for (const event of functionCallEvents(request, JSON.stringify(answer(request)))) {
        res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`)
      }
      res.end()
      return
    }
    send(200, responseBody(request, JSON.stringify(answer(request))))
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}

/** OpenAI's wording for the two rules strict mode checks first. */
function strictProblem(node: Record<string, unknown>, context: string[]): string | undefined {
  const where = `In context=(${context.map((part) => `'${part}'`).join(', ')})`
  if (node.type === 'object' || node.properties) {
    const properties = (node.properties ?? {}) as Record<string, Record<string, unknown>>
    const required = Array.isArray(node.required) ? (node.required as string[]) : []
    const missing = Object.keys(properties).find((name) => !required.includes(name))
    if (missing !== undefined) {
      return `${where}, 'required' is required to be supplied and to be an array including every key in properties. Missing '${missing}'.`
    }
    if (node.additionalProperties !== false) {
      return `${where}, 'additionalProperties' is required to be supplied and to be false.`
    }
    for (const [name, property] of Object.entries(properties)) {
      const problem = strictProblem(property, [...context, 'properties', name])
      if (problem) return problem
    }
  }
  if (node.items && typeof node.items === 'object') {
    return strictProblem(node.items as Record<string, unknown>, [...context, 'items'])
  }
  if (Array.isArray(node.anyOf)) {
    for (const [index, branch] of node.anyOf.entries()) {
      const problem = strictProblem(branch as Record<string, unknown>, [...context, 'anyOf', String(index)])
      if (problem) return problem
    }
  }
  return undefined
}

function responseBody(request: RecordedRequest, text: string) {
  const created = Math.floor(Date.now() / 1000)
  return {
    id: 'resp_fake_1',
    object: 'response',
    created_at: created,
    status: 'completed',
    completed_at: created,
    error: null,
    incomplete_details: null,
    model: String(request.body.model),
    output: [
      {
        id: 'msg_fake_1',
        type: 'message',
        status: 'completed',
        content: [{ type: 'output_text', annotations: [], logprobs: [], text }],
        role: 'assistant',
      },
    ],
    parallel_tool_calls: true,
    store: request.body.store ?? true,
    text: request.body.text,
    tool_choice: 'auto',
    tools: [],
    usage: {
      input_tokens: 68,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 10,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 78,
    },
  }
}

/** A streamed function call, as the Responses API sends it (fields the SDK does not read left out). */
function functionCallEvents(request: RecordedRequest, args: string): Record<string, unknown>[] {
  const created = Math.floor(Date.now() / 1000)
  const response = {
    id: 'resp_fake_1',
    object: 'response',
    created_at: created,
    model: String(request.body.model),
  }
  const item = { id: 'fc_fake_1', type: 'function_call', call_id: 'call_fake_1', name: 'AgentOutput' }
  const half = Math.ceil(args.length / 2)
  return [
    {
      type: 'response.created',
      response: { ...response, status: 'in_progress', output: [] },
      sequence_number: 0,
    },
    {
      type: 'response.output_item.added',
      item: { ...item, status: 'in_progress', arguments: '' },
      output_index: 0,
      sequence_number: 1,
    },
    {
      type: 'response.function_call_arguments.delta',
      delta: args.slice(0, half),
      item_id: item.id,
      output_index: 0,
      sequence_number: 2,
    },
    {
      type: 'response.function_call_arguments.delta',
      delta: args.slice(half),
      item_id: item.id,
      output_index: 0,
      sequence_number: 3,
    },
    {
      type: 'response.function_call_arguments.done',
      arguments: args,
      item_id: item.id,
      output_index: 0,
      sequence_number: 4,
    },
    {
      type: 'response.output_item.done',
      item: { ...item, status: 'completed', arguments: args },
      output_index: 0,
      sequence_number: 5,
    },
    {
      type: 'response.completed',
      response: {
        ...response,
        status: 'completed',
        output: [{ ...item, status: 'completed', arguments: args }],
        usage: {
          input_tokens: 45,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: 25,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: 70,
        },
      },
      sequence_number: 6,
    },
  ]
}
